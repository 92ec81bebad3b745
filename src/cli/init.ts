import * as Command from "@effect/cli/Command"
import { init, type InitResult } from "../programs/init.js"
import { globalOptions } from "./options.js"
import type { View } from "./render.js"
import { runCommand } from "./run.js"

const initView: View<InitResult> = {
  text: (r, s) =>
    [
      `${s.green("✓")} workspace ready`,
      `  config  ${r.configFile}${r.configCreated ? " (created)" : ""}`,
      `  state   ${r.databases.state.path}`,
      `  index   ${r.databases.index.path}`,
      `  logs    ${r.databases.logs.path}`
    ].join("\n")
}

export const initCommand = Command.make("init", { ...globalOptions }, (options) => runCommand(options, init(), initView)).pipe(
  Command.withDescription("Create the workspace: directories, config.yaml and the three databases. Safe to run again. Example: akm init")
)
