import * as Command from "@effect/cli/Command"
import * as Options from "@effect/cli/Options"
import { Option } from "effect"
import { everything, type EverythingResult } from "../programs/scope/everything.js"
import { globalOptions } from "./options.js"
import { questionsText } from "./questions.js"
import type { View } from "./render.js"
import { callerContext, runCommand } from "./run.js"

const everythingView: View<EverythingResult> = {
  text: (r, s) => {
    const lines: Array<string> = []
    const working = r.plan.stations.filter((st) => st.work).map((st) => st.station)
    lines.push(s.bold(r.mode === "check" ? `akm everything --check (${r.bundle})` : `akm everything${r.mode === "all" ? " --all" : ""} (${r.bundle})`))
    lines.push(s.dim(`plan: ${r.plan.source === "git" ? `${r.plan.changed} changed file${r.plan.changed === 1 ? "" : "s"}` : "no git diff"}; work for ${working.length === 0 ? "no station" : working.join(", ")}`))
    for (const step of r.steps) {
      const mark = step.status === "failed" || step.problems.length > 0 ? s.red("✗") : step.status === "skipped" ? s.dim("-") : s.green("✓")
      lines.push(`${mark} ${step.step.padEnd(8)} ${step.status === "skipped" ? s.dim(`skipped: ${step.reasons.join("; ")}`) : step.did.join("; ")}`)
      if (step.status !== "skipped" && r.mode === "scoped") lines.push(s.dim(`           why: ${step.reasons.join("; ")}`))
      for (const p of step.problems) lines.push(`           ${s.red(p)}`)
    }
    lines.push("")
    lines.push(questionsText(r.questions, s))
    if (r.mode === "check") lines.push(r.ok ? `${s.green("✓")} every check passed` : `${s.red("✗")} ${r.steps.reduce((n, st) => n + st.problems.length, 0)} problem(s): see above`)
    return lines.join("\n")
  },
  rows: (r) => r.steps
}

export const everythingCommand = Command.make(
  "everything",
  {
    all: Options.boolean("all").pipe(Options.withDescription("run every station, whatever the scope plan says")),
    check: Options.boolean("check").pipe(Options.withDescription("the CI gate: run every check, write nothing in the repository, exit 1 on a problem")),
    bundle: Options.text("bundle").pipe(Options.withDescription("the project bundle (default: the one around the current folder, else the only one)"), Options.optional),
    ...globalOptions
  },
  (o) => runCommand(o, everything({ all: o.all, check: o.check, bundle: Option.getOrUndefined(o.bundle), cwd: callerContext().cwd }), everythingView, (r) => (r.ok ? 0 : 1))
).pipe(Command.withDescription("Run the whole pipeline, each station only when it has work. Capture, distil, harden, project, surface, then index and lint; ends with the questions. Example: akm everything --check"))
