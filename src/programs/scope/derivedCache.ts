import { FileSystem } from "@effect/platform/FileSystem"
import { Effect } from "effect"
import { createHash } from "node:crypto"
import * as path from "node:path"
import { FileStamps } from "../../services/FileStamps.js"
import { WorkspaceConfig } from "../../services/WorkspaceConfig.js"
import type { ProjectTarget } from "../ledger/projectBundle.js"

/**
 * State derived from a project's files (the question batch), kept in the
 * workspace's cache folder under a key made of its inputs' stats — path,
 * size, modification and change times, inode (FileStamps) — so an unchanged
 * ledger costs a walk of stats, not 2,000 reads and YAML parses (docs/decisions/0035-everything-cost.md).
 * Never in the repository: a pass must not dirty the tree it scopes.
 *
 * A stat can miss a same-size edit made within the timestamp's resolution of
 * the previous look (git's "racy clean" entries), so a value is stored only
 * when every input is older than RACY_MS: a later edit then has a later time.
 * Any trouble reading or writing the cache is a miss, never an error.
 */

const RACY_MS = 2_000

export interface Derived<A> {
  readonly value: A
  /** False when the value read something the input stats do not cover (it is then rebuilt every time). */
  readonly cacheable: boolean
}

const cacheFile = (cacheDir: string, target: ProjectTarget, name: string) =>
  path.join(cacheDir, "derived", `${createHash("sha256").update(path.resolve(target.root)).digest("hex").slice(0, 16)}-${name}.json`)

/**
 * The value `compute` derives from the files under `inputs`, from the cache
 * when none of them changed (same stats) and `salt` is the same; otherwise
 * computed and, when cacheable and not racy, stored for the next pass.
 */
export const derivedCache = <A, E, R>(target: ProjectTarget, name: string, inputs: ReadonlyArray<string>, salt: string, compute: Effect.Effect<Derived<A>, E, R>) =>
  Effect.gen(function* () {
    const fs = yield* FileSystem
    const { paths } = yield* WorkspaceConfig
    const file = cacheFile(paths.cacheDir, target, name)
    const stamps = yield* FileStamps
    const before = yield* stamps.stamp(target.root, inputs, salt)
    const stored = yield* Effect.orElseSucceed(Effect.map(fs.readFileString(file), (text) => JSON.parse(text) as { key?: unknown; value?: A }), () => undefined)
    if (stored !== undefined && stored.key === before.key && stored.value !== undefined) return stored.value
    const derived = yield* compute
    const after = yield* stamps.stamp(target.root, inputs, salt)
    // Written only when the inputs did not move while it was computed and are too old to be racy.
    if (derived.cacheable && after.key === before.key && after.newest < Date.now() - RACY_MS) {
      const temporary = `${file}.${process.pid}.tmp`
      yield* Effect.ignore(Effect.gen(function* () {
        yield* fs.makeDirectory(path.dirname(file), { recursive: true })
        yield* fs.writeFileString(temporary, JSON.stringify({ key: after.key, value: derived.value }))
        yield* fs.rename(temporary, file)
      }).pipe(Effect.tapError(() => Effect.ignore(fs.remove(temporary)))))
    }
    return derived.value
  })
