import * as Args from "@effect/cli/Args"
import * as Command from "@effect/cli/Command"
import * as Options from "@effect/cli/Options"
import { Effect, Option } from "effect"
import { UsageError } from "../domain/Errors.js"
import { init, type InitResult } from "../programs/init.js"
import { initProject, type InitProjectResult } from "../programs/ledger/initProject.js"
import { globalOptions } from "./options.js"
import type { View } from "./render.js"
import { callerContext, runCommand } from "./run.js"

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

const projectView: View<InitProjectResult> = {
  text: (r, s) =>
    [
      r.unchanged ? `${s.green("✓")} project '${r.bundle}' is already set up; nothing changed` : `${s.green("✓")} project '${r.bundle}' ready`,
      `  root    ${r.root}`,
      ...(r.registered ? ["  bundle  registered (writable, project adapter)"] : []),
      ...r.created.map((f) => `  created ${f}`),
      ...r.kept.map((f) => s.dim(`  kept    ${f} (already there)`)),
      ...r.warnings.map((w) => s.yellow(`  warning: ${w}`)),
      ...(r.unchanged ? [] : [s.dim("  next: akm ledger add failure --help")])
    ].join("\n")
}

export const initCommand = Command.make(
  "init",
  {
    what: Args.choice([["project", "project"]] as const, { name: "project" }).pipe(Args.withDescription("`project`: set up a code repository's knowledge (.ai/, context/) as a project bundle"), Args.optional),
    dir: Options.text("dir").pipe(Options.withDescription("with project: the repository's folder (default: the current one)"), Options.optional),
    name: Options.text("name").pipe(Options.withDescription("with project: the bundle name (default: the folder name)"), Options.optional),
    noGit: Options.boolean("no-git").pipe(Options.withDescription("with project: allow a folder that is not a git work tree")),
    ...globalOptions
  },
  (o) => {
    if (Option.isSome(o.what)) {
      return runCommand(o, initProject({ dir: Option.getOrUndefined(o.dir), name: Option.getOrUndefined(o.name), noGit: o.noGit, ...callerContext() }), projectView)
    }
    if (Option.isSome(o.dir) || Option.isSome(o.name) || o.noGit) {
      return runCommand(o, Effect.fail(new UsageError({ message: "--dir, --name and --no-git belong to `akm init project`", hint: "akm init project --dir <repository>" })), initView)
    }
    return runCommand(o, init(), initView)
  }
).pipe(
  Command.withDescription("Create the workspace: directories, config.yaml and the three databases; `init project` sets up a repository's knowledge. Safe to run again. Example: akm init project --dir ~/src/shop")
)
