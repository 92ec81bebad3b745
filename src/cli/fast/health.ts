import { openHealthLive } from "../../layers/HealthLive.js"
import { health } from "../../programs/health.js"
import { ExitCode } from "../exitCodes.js"
import { healthView } from "../healthView.js"
import { parseFastArgv, type FastCommandSpec } from "./argv.js"
import { runFast } from "./run.js"

/**
 * `akm health` without @effect/cli (docs/decisions/0013-fast-read-commands.md),
 * from dist/cli/health.cjs: the same program (programs/health.ts) and view
 * (cli/healthView.ts) as cli/health.ts, on the layers of layers/HealthLive.ts;
 * a workspace not in its everyday state and every error go to the full CLI.
 */
export const HEALTH_SPEC: FastCommandSpec = { words: ["health"], positionals: 0 }

export const runHealth = async (argv: ReadonlyArray<string>): Promise<number | undefined> => {
  const args = parseFastArgv(HEALTH_SPEC, argv)
  if (args === undefined) return undefined
  const live = openHealthLive({ configDir: args.configDir, dataDir: args.dataDir, cacheDir: args.cacheDir })
  if (live === undefined) return undefined
  return runFast(args, { layer: live.layer, flush: () => undefined, close: live.close }, health(), healthView, (result) => (result.ok ? ExitCode.ok : ExitCode.attention))
}
