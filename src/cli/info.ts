import * as Command from "@effect/cli/Command"
import { info } from "../programs/info.js"
import { VERSION } from "../version.js"
import { globalOptions } from "./options.js"
import { infoView } from "./infoView.js"
import { runCommand } from "./run.js"

export const infoCommand = Command.make("info", { ...globalOptions }, (options) => runCommand(options, info({ version: VERSION }), infoView)).pipe(
  Command.withDescription("Show where the workspace lives: config, the three databases and caches, versions, sizes, bundle count. Example: akm info --format json")
)
