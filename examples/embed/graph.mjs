// Embedding akm with a service graph of your own (spec 09 §5, issue 24): this
// program imports only the package ("akm", its built entry dist/lib/index.js)
// and effect, assembles the graph from `layers` piece by piece the way
// makeAkmLive does — with the in-memory IndexStore instead of index.db and no
// progress output — then searches, remembers (a pending proposal, because
// this workspace sends every change to review) and accepts the proposal.
//
//   node examples/embed/graph.mjs <empty folder>    (prints the results as JSON)
import { mkdirSync, writeFileSync } from "node:fs"
import { homedir } from "node:os"
import { join } from "node:path"
import { Effect, Layer } from "effect"
import { layers, programs } from "akm"

const root = process.argv[2]
if (root === undefined) {
  process.stderr.write("usage: node examples/embed/graph.mjs <empty folder>\n")
  process.exit(2)
}
const notes = join(root, "notes")
mkdirSync(notes, { recursive: true })
writeFileSync(join(notes, "caching.md"), "# HTTP caching\n\nSend `Cache-Control: max-age` for assets that never change.\n")

/** The graph, bottom up: workspace paths, state.db, files, adapters, the swapped index, then the stores and engines. */
const graph = Layer.mergeAll(
  layers.StateStoreSqlite,
  layers.UsageLogSqlite,
  layers.RedactorSqlite,
  layers.ProposalStoreSqlite,
  layers.TokenizerGpt,
  layers.LogStoreSqlite,
  layers.MaterializerLive,
  layers.TransactionEngineLive,
  layers.GitHistoryIsomorphic,
  layers.ItemProjectorInProcess
).pipe(
  Layer.provideMerge(layers.ChangeValidatorIndexed),
  Layer.provideMerge(layers.IndexStoreMiniSearch),
  Layer.provideMerge(layers.ProgressSilent),
  Layer.provideMerge(layers.AdaptersBuiltIn),
  Layer.provideMerge(layers.CrashPointsNone),
  Layer.provideMerge(layers.BundleFilesNode),
  Layer.provideMerge(layers.StateDbLive),
  Layer.provideMerge(layers.WorkspaceConfigLive({ configDir: join(root, "config"), dataDir: join(root, "data"), cacheDir: join(root, "cache") })),
  Layer.provideMerge(layers.NodeContextLive)
)

const program = Effect.gen(function* () {
  yield* programs.init()
  yield* programs.bundleAdd({ source: notes, name: "notes", writable: true, cwd: root, home: homedir() })
  yield* programs.configSet("defaultBundle", "notes")
  yield* programs.configSet("policy.autoApply", "[]")
  const found = yield* programs.search({ query: "cache control" })
  const remembered = yield* programs.remember({ text: "Assets with a hash in their name can be cached for a year." })
  const pending = yield* programs.proposalList({ status: "pending" })
  const accepted = yield* programs.proposalAccept(remembered.id)
  const after = yield* programs.search({ query: "cached for a year" })
  return { found, remembered, pending, accepted, after }
})

const result = await Effect.runPromise(program.pipe(Effect.provide(graph), Effect.scoped))
process.stdout.write(`${JSON.stringify(result)}\n`)
