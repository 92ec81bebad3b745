import { Effect } from "effect"
import { CURATE_DEFAULTS } from "../../domain/Curate.js"
import { curateWith } from "../../programs/curate.js"
import { curateView } from "../curateView.js"
import { eventSource } from "../eventSource.js"
import { checkLimitRange } from "../limit.js"
import { parseFastArgv, POSITIVE_INTEGER, type FastCommandSpec } from "./argv.js"
import { openIndexedLive, runFast } from "./run.js"

/**
 * `akm curate "<task>" [--budget N] [--bundle B]… [--limit N] [--no-track]`
 * without @effect/cli (docs/decisions/0013-fast-read-commands.md), from
 * dist/cli/curate.cjs: the same program (programs/curate.ts) and view
 * (cli/curateView.ts) as cli/curate.ts, on the layers of fast/run.ts. Token
 * counts not yet cached load the tokenizer here as there (a cold curate).
 */
export const CURATE_SPEC: FastCommandSpec = {
  words: ["curate"],
  positionals: 1,
  valued: { "--budget": POSITIVE_INTEGER, "--bundle": undefined, "--limit": POSITIVE_INTEGER },
  repeatable: new Set(["--bundle"]),
  flags: new Set(["--no-track"])
}

export const runCurate = async (argv: ReadonlyArray<string>): Promise<number | undefined> => {
  const args = parseFastArgv(CURATE_SPEC, argv)
  if (args === undefined) return undefined
  const track = !args.flags.has("--no-track")
  const live = openIndexedLive(args, track)
  if (live === undefined) return undefined
  const number = (name: string) => {
    const text = args.values.get(name)?.[0]
    return text === undefined ? undefined : Number(text)
  }
  const bundles = args.values.get("--bundle") ?? []
  const limit = number("--limit")
  const program = Effect.zipRight(
    checkLimitRange(limit),
    // openIndexedLive opened only a built index: nothing to build first.
    curateWith(Effect.void)({
      task: args.positionals[0]!,
      budget: number("--budget") ?? CURATE_DEFAULTS.budget,
      bundles: bundles.length === 0 ? undefined : bundles,
      limit,
      track,
      source: eventSource()
    })
  )
  return runFast(args, live, program, curateView)
}
