import { bundleList } from "../../programs/bundle/list.js"
import { listView } from "../bundleListView.js"
import { parseFastArgv, type FastCommandSpec } from "./argv.js"
import { openIndexedLive, runFast } from "./run.js"

/**
 * `akm bundle list` without @effect/cli (docs/decisions/0013-fast-read-commands.md),
 * from dist/cli/bundle-list.cjs: the same program (programs/bundle/list.ts)
 * and view (cli/bundleListView.ts) as cli/bundle.ts, on the layers of
 * fast/run.ts (state.db is not opened: the listing records nothing).
 */
export const BUNDLE_LIST_SPEC: FastCommandSpec = { words: ["bundle", "list"], positionals: 0 }

export const runBundleList = async (argv: ReadonlyArray<string>): Promise<number | undefined> => {
  const args = parseFastArgv(BUNDLE_LIST_SPEC, argv)
  if (args === undefined) return undefined
  const live = openIndexedLive(args, false)
  if (live === undefined) return undefined
  return runFast(args, live, bundleList(), listView)
}
