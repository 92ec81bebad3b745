import { SHOW_LEVELS } from "../../domain/Show.js"
import { Effect } from "effect"
import { showWith } from "../../programs/show.js"
import { eventSource } from "../eventSource.js"
import { showView } from "../showView.js"
import { parseFastArgv, type FastCommandSpec } from "./argv.js"
import { openIndexedLive, runFast } from "./run.js"

/**
 * `akm show <ref> [--level L] [--lines A:B] [--no-track]` without @effect/cli
 * (docs/decisions/0013-fast-read-commands.md): bin/akm.js tries this first,
 * from its own bundle (dist/cli/show.cjs). The same program (programs/show.ts)
 * and view (cli/showView.ts) as cli/show.ts, on the layers of fast/run.ts.
 * `--max-tokens` (which loads the tokenizer), unusual command lines, a
 * workspace not in its everyday state and every error go to the full CLI.
 */
export const SHOW_SPEC: FastCommandSpec = {
  words: ["show"],
  positionals: 1,
  valued: { "--level": new Set(SHOW_LEVELS), "--lines": undefined },
  flags: new Set(["--no-track"])
}

export const runShow = async (argv: ReadonlyArray<string>): Promise<number | undefined> => {
  const args = parseFastArgv(SHOW_SPEC, argv)
  if (args === undefined) return undefined
  const track = !args.flags.has("--no-track")
  const live = openIndexedLive(args, track)
  if (live === undefined) return undefined
  // openIndexedLive opened only a built index: nothing to build first (programs/show.ts resolveTargetWith).
  const program = showWith(Effect.void)({
    ref: args.positionals[0]!,
    level: (args.values.get("--level")?.[0] ?? "full") as (typeof SHOW_LEVELS)[number],
    maxTokens: undefined,
    lines: args.values.get("--lines")?.[0],
    track,
    source: eventSource()
  })
  return runFast(args, live, program, showView)
}
