import * as Command from "@effect/cli/Command"
import * as Options from "@effect/cli/Options"
import { Option } from "effect"
import { shortId } from "../domain/Proposal.js"
import { mapsCheck, mapsWrite, type MapsCheck, type MapsWrite } from "../programs/project/maps.js"
import { routersCheck, routersWrite, type RoutersCheck, type RoutersWrite } from "../programs/project/routers.js"
import { globalOptions } from "./options.js"
import { table, type View } from "./render.js"
import { callerContext, runCommand } from "./run.js"

const bundle = Options.text("bundle").pipe(Options.withDescription("the project bundle (default: the one around the current folder, else the only one)"), Options.optional)
const target = Options.text("target").pipe(Options.withDescription("only this target (an id such as claude, or its path); repeat it for more"), Options.repeated)
const where = (o: { readonly bundle: Option.Option<string> }) => ({ bundle: Option.getOrUndefined(o.bundle), cwd: callerContext().cwd })

const writeView: View<RoutersWrite> = {
  text: (r, s) =>
    [
      table(r.files.map((f) => [
        f.action === "needs-adopt" ? s.yellow("skipped") : f.action === "adopt-pending" ? s.yellow("adopt") : f.action === "unchanged" ? s.dim("unchanged") : f.action,
        f.path,
        `${f.bytes} B`,
        f.action === "needs-adopt" ? s.yellow("has no akm:generated markers: pass --adopt to take it over") : f.sections === undefined || f.sections.length === 0 ? "" : s.dim(f.sections.join(", "))
      ])),
      ...(r.proposal === undefined ? [] : [s.dim(`proposal ${shortId(r.proposal.id)} (undo: akm proposal revert ${shortId(r.proposal.id)})`)]),
      ...(r.adoption === undefined ? [] : [s.yellow(`takeover proposal ${shortId(r.adoption.id)} is ${r.adoption.status}: review the diff with akm proposal show ${shortId(r.adoption.id)}, then akm proposal accept ${shortId(r.adoption.id)}`)]),
      r.proposal === undefined && r.adoption === undefined && r.ok ? `${s.green("✓")} every router is up to date` : ""
    ].filter((l) => l !== "").join("\n"),
  rows: (r) => r.files
}

const checkView: View<RoutersCheck> = {
  text: (r, s) =>
    r.ok
      ? `${s.green("✓")} ${r.checked.length} router files match ${"context/router-contract.md"}`
      : [...r.drift.map((d) => `${d.path}${d.line === undefined ? "" : `:${d.line}`}  ${s.red("drift")}  ${d.message}`), `${s.red("✗")} ${r.drift.length} of ${r.checked.length} router files drifted`].join("\n"),
  rows: (r) => r.drift
}

const routersWriteCommand = Command.make(
  "write",
  { adopt: Options.boolean("adopt").pipe(Options.withDescription("take over router files that exist without akm:generated markers (their text is kept; a proposal shows the diff)")), target, bundle, ...globalOptions },
  (o) => runCommand(o, routersWrite({ ...where(o), adopt: o.adopt, targets: o.target }), writeView, (r) => (r.ok ? 0 : 1))
).pipe(Command.withDescription("Generate the agent router files (AGENTS.md, CLAUDE.md, Cursor, Copilot …) from context/router-contract.md; text outside the generated markers is kept. Example: akm routers write"))

const routersCheckCommand = Command.make("check", { target, bundle, ...globalOptions }, (o) => runCommand(o, routersCheck({ ...where(o), targets: o.target }), checkView, (r) => (r.ok ? 0 : 1))).pipe(
  Command.withDescription("Check every router file against the contract; exits 1 naming each drifted file and section. Example: akm routers check")
)

export const routersCommand = Command.make("routers").pipe(
  Command.withDescription("Generate agent router files from one contract: write, then check for drift. Example: akm routers write"),
  Command.withSubcommands([routersWriteCommand, routersCheckCommand])
)

const mapsWriteView: View<MapsWrite> = {
  text: (r, s) =>
    [
      ...r.files.map((f) => `${f.action === "unchanged" ? s.dim("unchanged") : f.action}  ${f.path}  ${f.bytes} B`),
      s.dim(`  ${r.dependencies} dependencies, ${r.components} components`),
      ...r.problems.map((p) => s.yellow(`  ${p.path}:${p.line} ${p.message}`)),
      ...(r.proposal === undefined ? [] : [s.dim(`  proposal ${shortId(r.proposal.id)} (undo: akm proposal revert ${shortId(r.proposal.id)})`)])
    ].join("\n"),
  rows: (r) => r.files
}

const mapsCheckView: View<MapsCheck> = {
  text: (r, s) =>
    [
      ...(r.ok ? [`${s.green("✓")} context/stack.md and context/components.md are up to date`] : r.drift.map((d) => `${d.path}${d.line === undefined ? "" : `:${d.line}`}  ${s.red("drift")}  ${d.message}`)),
      ...r.problems.map((p) => s.yellow(`${p.path}:${p.line}  ${p.message}`))
    ].join("\n"),
  rows: (r) => r.drift
}

const mapsWriteCommand = Command.make("write", { bundle, ...globalOptions }, (o) => runCommand(o, mapsWrite(where(o)), mapsWriteView)).pipe(
  Command.withDescription("Generate context/stack.md (dependencies from package.json, pyproject.toml, requirements*.txt, Cargo.toml, go.mod) and context/components.md. Example: akm maps write")
)

const mapsCheckCommand = Command.make("check", { bundle, ...globalOptions }, (o) => runCommand(o, mapsCheck(where(o)), mapsCheckView, (r) => (r.ok ? 0 : 1))).pipe(
  Command.withDescription("Check the generated maps against the repository; exits 1 naming each drifted map. Example: akm maps check")
)

export const mapsCommand = Command.make("maps").pipe(
  Command.withDescription("Generate the dependency and component maps: write, then check for drift. Example: akm maps write"),
  Command.withSubcommands([mapsWriteCommand, mapsCheckCommand])
)
