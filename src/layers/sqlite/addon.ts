import { existsSync } from "node:fs"
import { dirname, join } from "node:path"

/**
 * Where npm put better-sqlite3's compiled addon, for `new Database(file, {
 * nativeBinding })`: it spares the `bindings` package's search of a dozen
 * candidate folders, and lets the search fast path bundle better-sqlite3's
 * JavaScript (docs/decisions/0002-start-up.md). Undefined when the addon is
 * elsewhere or `require` is not at hand (ES modules): callers then let
 * better-sqlite3 find it.
 */
export const betterSqliteAddon = (): string | undefined => {
  try {
    const file = join(dirname(require.resolve("better-sqlite3/package.json")), "build", "Release", "better_sqlite3.node")
    return existsSync(file) ? file : undefined
  } catch {
    return undefined
  }
}
