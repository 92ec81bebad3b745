import * as NodeFileSystem from "@effect/platform-node/NodeFileSystem"
import { Layer } from "effect"
import { makeWorkspaceConfig, resolveWorkspacePaths } from "../../layers/fs/WorkspaceConfigFile.js"
import { mayUsePostgres } from "../../layers/postgres/configured.js"
import { info } from "../../programs/info.js"
import { WorkspaceConfig } from "../../services/WorkspaceConfig.js"
import { VERSION } from "../../version.js"
import { infoView } from "../infoView.js"
import { parseFastArgv, type FastCommandSpec } from "./argv.js"
import { runFast } from "./run.js"

/**
 * `akm info` without @effect/cli (docs/decisions/0013-fast-read-commands.md),
 * from dist/cli/info.cjs: the same program (programs/info.ts) and view
 * (cli/infoView.ts) as cli/info.ts, on the real WorkspaceConfig and
 * FileSystem layers; like the full command it opens no database.
 */
export const INFO_SPEC: FastCommandSpec = { words: ["info"], positionals: 0 }

export const runInfo = async (argv: ReadonlyArray<string>): Promise<number | undefined> => {
  const args = parseFastArgv(INFO_SPEC, argv)
  if (args === undefined) return undefined
  const paths = resolveWorkspacePaths({ configDir: args.configDir, dataDir: args.dataDir, cacheDir: args.cacheDir })
  // The PostgreSQL server's version and reachability are the full CLI's to report.
  if (mayUsePostgres(paths.configFile)) return undefined
  const layer = Layer.mergeAll(Layer.sync(WorkspaceConfig, () => makeWorkspaceConfig(paths)), NodeFileSystem.layer)
  return runFast(args, { layer, flush: () => undefined, close: () => undefined }, info({ version: VERSION }), infoView)
}
