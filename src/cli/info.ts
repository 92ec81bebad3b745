import * as Command from "@effect/cli/Command"
import { info, type InfoResult } from "../programs/info.js"
import { VERSION } from "../version.js"
import { globalOptions } from "./options.js"
import { formatBytes, table, type View } from "./render.js"
import { runCommand } from "./run.js"

const infoView: View<InfoResult> = {
  text: (r, s) => {
    const db = (d: InfoResult["databases"]["state"]) => (d.exists ? `${d.path}  ${s.dim(formatBytes(d.bytes))}` : `${d.path}  ${s.yellow("(not created; run akm init)")}`)
    return table([
      ["akm", `${r.version} (node ${r.node})`],
      ["config", r.paths.config],
      ["data", r.paths.dataDir],
      ["cache", r.paths.cacheDir],
      ["state.db", db(r.databases.state)],
      ["index.db", db(r.databases.index)],
      ["logs.db", db(r.databases.logs)],
      ["bundles", `${r.bundles}${r.defaultBundle === null ? "" : ` (default: ${r.defaultBundle})`}`]
    ])
  }
}

export const infoCommand = Command.make("info", { ...globalOptions }, (options) => runCommand(options, info({ version: VERSION }), infoView)).pipe(
  Command.withDescription("Show where the workspace lives: config, the three databases and caches, versions, sizes, bundle count. Example: akm info --format json")
)
