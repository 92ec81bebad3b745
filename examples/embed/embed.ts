/**
 * Embedding akm (spec 09 §5, R-ARCH-2): run akm's programs from your own code
 * with the live service graph — but one layer swapped. Here the SQLite index
 * (index.db) is replaced by the in-memory IndexStore, the way an embedding
 * program plugs in its own store, a sandbox or a test double.
 *
 * An application imports these from the "akm" package; this example imports
 * the package's source entry so it runs inside the repository.
 */
import { mkdirSync, mkdtempSync, writeFileSync } from "node:fs"
import { homedir, tmpdir } from "node:os"
import { join } from "node:path"
import { pathToFileURL } from "node:url"
import { Effect, Layer } from "effect"
import { IndexStoreMiniSearch, makeAkmLive, programs } from "../../src/index.js"

/** Where the example's workspace lives; every directory is under `root`. */
export interface EmbedPaths {
  readonly root: string
  readonly configDir: string
  readonly dataDir: string
  readonly cacheDir: string
  /** A small markdown folder the example adds as a bundle. */
  readonly notesDir: string
}

const prepare = (root: string): EmbedPaths => {
  const notesDir = join(root, "notes")
  mkdirSync(notesDir, { recursive: true })
  writeFileSync(join(notesDir, "caching.md"), "# HTTP caching\n\nSend `Cache-Control: max-age` for assets that never change.\n")
  return { root, configDir: join(root, "config"), dataDir: join(root, "data"), cacheDir: join(root, "cache"), notesDir }
}

/** What the example ran: init, the added bundle, and the list that shows it. */
const program = (paths: EmbedPaths) =>
  Effect.gen(function* () {
    const initialized = yield* programs.init()
    const added = yield* programs.bundleAdd({ source: paths.notesDir, name: "notes", cwd: paths.root, home: homedir() })
    const listed = yield* programs.bundleList()
    return { initialized, added, listed }
  })

/**
 * The live graph with the IndexStore swapped. When two merged layers provide
 * the same service the right-hand one wins, so the memory store replaces
 * the SQLite one; the SQLite layer opens index.db only on first use, which
 * now never comes.
 */
export const embeddedLayer = (paths: EmbedPaths) =>
  Layer.merge(makeAkmLive({ configDir: paths.configDir, dataDir: paths.dataDir, cacheDir: paths.cacheDir, quiet: true }), IndexStoreMiniSearch)

/** Runs the example in `root` (default: a new temp dir) and returns what the programs returned. */
export const main = async (root: string = mkdtempSync(join(tmpdir(), "akm-embed-"))) => {
  const paths = prepare(root)
  const result = await Effect.runPromise(program(paths).pipe(Effect.provide(embeddedLayer(paths))))
  return { paths, ...result }
}

if (process.argv[1] !== undefined && import.meta.url === pathToFileURL(process.argv[1]).href) {
  const { paths, initialized, listed } = await main()
  console.log(JSON.stringify({ workspace: paths.root, index: initialized.databases.index.path, bundles: listed.bundles.map((b) => b.name) }, null, 2))
}
