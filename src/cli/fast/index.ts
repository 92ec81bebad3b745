import { Effect, Layer } from "effect"
import { AdaptersBuiltIn } from "../../layers/adapters/registry.js"
import type { SqlText } from "../../layers/sqlite/index/sqlText.js"
import { indexUnchanged } from "../../programs/indexBundles.js"
import { ItemProjector } from "../../services/ItemProjector.js"
import { indexView } from "../indexView.js"
import { parseFastArgv, type FastCommandSpec } from "./argv.js"
import { openIndexedLive, runFast } from "./run.js"

/**
 * `akm index [--bundle B] [--dry-run]` when nothing changed, without
 * @effect/cli (docs/decisions/0045-noop-and-startup.md), from
 * dist/cli/index.cjs: the same program (programs/indexBundles.ts) and view
 * (cli/indexView.ts) as cli/index.ts, on the layers of fast/run.ts plus the
 * built-in adapters. The program is indexUnchanged: a bundle whose
 * files differ from its manifest (or that is stale) fails the run before
 * anything is written, and bin/akm.js runs the full CLI, which walks again and
 * scans. `--full`, unusual command lines, a workspace not in its everyday
 * state, retirement overlays to lay (R-MEM-5: the full CLI's MemoryStore) and
 * every error go to the full CLI too.
 */
export const INDEX_SPEC: FastCommandSpec = {
  words: ["index"],
  positionals: 0,
  valued: { "--bundle": undefined },
  flags: new Set(["--dry-run"])
}

/** indexUnchanged fails before any scan, so no item is ever projected here. */
const NoProjection = Layer.succeed(ItemProjector, ItemProjector.of({ run: () => Effect.dieMessage("the index fast path does not scan (indexUnchanged)") }))

/** Whether state.db holds a retired or quarantined memory whose overlay an index run lays (indexBundles). */
const OVERLAYS: SqlText = { text: "SELECT 1 FROM memory_archive WHERE overlay = 1 AND state IN ('retired', 'quarantined') LIMIT 1", params: [] }

export const runIndex = async (argv: ReadonlyArray<string>): Promise<number | undefined> => {
  const args = parseFastArgv(INDEX_SPEC, argv)
  if (args === undefined) return undefined
  // The run copies utilities from state.db, so state.db is checked and opened as for a tracked search.
  const live = openIndexedLive(args, true, process.stderr.isTTY === true)
  if (live === undefined) return undefined
  let overlays: boolean
  try {
    overlays = live.state.open().rowsSync(OVERLAYS).length > 0
  } catch {
    overlays = true
  }
  if (overlays) {
    live.close()
    return undefined
  }
  const layer = Layer.merge(AdaptersBuiltIn, NoProjection).pipe(Layer.provideMerge(live.layer))
  const program = indexUnchanged({ bundle: args.values.get("--bundle")?.[0], dryRun: args.flags.has("--dry-run") })
  return runFast(args, { ...live, layer }, program, indexView)
}
