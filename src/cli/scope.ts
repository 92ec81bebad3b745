import * as Command from "@effect/cli/Command"
import * as Options from "@effect/cli/Options"
import { Option } from "effect"
import { scopePlan, type ScopePlan } from "../programs/scope/plan.js"
import { globalOptions } from "./options.js"
import { table, type View } from "./render.js"
import { callerContext, runCommand } from "./run.js"

const bundle = Options.text("bundle").pipe(Options.withDescription("the project bundle (default: the one around the current folder, else the only one)"), Options.optional)

const planView: View<ScopePlan> = {
  text: (r, s) =>
    [
      s.dim(r.source === "git" ? `${r.changed} changed file${r.changed === 1 ? "" : "s"} against HEAD` : "not a git repository"),
      table(r.stations.map((st) => [st.station, st.work ? s.yellow("work") : s.dim("skip"), st.reasons.length === 0 ? s.dim("none of its inputs changed") : st.reasons.join("; ")]))
    ].join("\n"),
  rows: (r) => r.stations
}

const planCommand = Command.make("plan", { bundle, ...globalOptions }, (o) => runCommand(o, scopePlan({ bundle: Option.getOrUndefined(o.bundle), cwd: callerContext().cwd }), planView)).pipe(
  Command.withDescription("Which station (capture, distil, harden, project, surface) has work, and why, from the working-tree diff. Example: akm scope plan")
)

export const scopeCommand = Command.make("scope").pipe(
  Command.withDescription("Change-scoping: which pipeline station a change gives work. Example: akm scope plan"),
  Command.withSubcommands([planCommand])
)
