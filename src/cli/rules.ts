import * as Args from "@effect/cli/Args"
import * as Command from "@effect/cli/Command"
import * as Options from "@effect/cli/Options"
import { Option } from "effect"
import { shortId } from "../domain/Proposal.js"
import { rulesCaused, rulesConflicts, rulesEvolve, rulesList, rulesShow, type RuleEvolution, type RulesConflicts, type RuleShown, type RulesList, type RuleWrite } from "../programs/project/rules.js"
import { globalOptions } from "./options.js"
import { table, type View } from "./render.js"
import { callerContext, runCommand } from "./run.js"

const bundle = Options.text("bundle").pipe(Options.withDescription("the project bundle (default: the one around the current folder, else the only one)"), Options.optional)
const rule = Args.text({ name: "rule" }).pipe(Args.withDescription("the rule: its id, file name or path under rules/"))
const where = (o: { readonly bundle: Option.Option<string> }) => ({ bundle: Option.getOrUndefined(o.bundle), cwd: callerContext().cwd })

const scopeText = (scope: ReadonlyArray<string>) => (scope.length === 0 ? "(everything)" : scope.join(", "))

const listView: View<RulesList> = {
  text: (r, s) =>
    [
      r.rules.length === 0
        ? `no rules under rules/ in ${r.bundle}`
        : table([
          [s.dim("ID"), s.dim("STATUS"), s.dim("SCOPE"), s.dim("TITLE")],
          ...r.rules.map((x) => [x.id, x.supersededBy === undefined ? "active" : `superseded by ${x.supersededBy}`, scopeText(x.scope), x.title])
        ]),
      ...r.evolutions.map((id) => s.yellow(`  rule ${id} caused a failure: draft its successor with akm rules evolve ${id}`)),
      ...r.revisits.map((q) => s.yellow(`  ${q.path}:${q.line} ${q.question}`)),
      ...r.problems.map((p) => s.red(`  ${p.path}:${p.line} ${p.message}`))
    ].join("\n"),
  rows: (r) => r.rules
}

const showView: View<RuleShown> = {
  text: (r, s) =>
    [
      s.dim(r.path),
      `${s.bold(`rule ${r.id}`)}: ${r.title} (${r.status === "active" ? "active" : `superseded by ${r.supersededBy}`})`,
      `  scope      ${scopeText(r.scope)}`,
      ...(r.introducedBy === undefined ? [] : [`  introduced ${r.introducedBy}`]),
      ...(r.caused.length === 0 ? [] : [`  caused     ${r.caused.join(", ")}`]),
      `  chain      ${r.chain.map((c) => (c.id === r.id ? s.bold(c.id) : c.status === "missing" ? `${c.id} (missing)` : c.id)).join(" → ")}`,
      ...r.mandates.map((m) => `  ${m.must ? "must    " : "must not"}   ${m.subject}`),
      ...(r.revisit === undefined ? [] : [s.yellow(`  ${r.revisit.question}`)]),
      "",
      r.text.trimEnd()
    ].join("\n")
}

const causedView: View<RuleWrite> = {
  text: (r, s) =>
    r.changed
      ? [`${s.green("✓")} rule ${r.rule} caused that failure: linked in ${r.path}`, s.dim(`  next: akm rules evolve ${r.rule}`), ...(r.proposal === undefined ? [] : [s.dim(`  proposal ${shortId(r.proposal.id)} (undo: akm proposal revert ${shortId(r.proposal.id)})`)])].join("\n")
      : `${s.dim("=")} ${r.path} already names that failure; nothing changed`
}

const evolveView: View<RuleEvolution> = {
  text: (r, s) =>
    [
      `${s.green("✓")} drafted rule ${r.to} to supersede rule ${r.from} (${r.failures.join(", ")})`,
      `  ${r.path}`,
      `  proposal ${shortId(r.proposal.id)} is ${r.proposal.status}`,
      ...(r.proposal.hint === undefined ? [] : [s.dim(`  review it: akm proposal show ${shortId(r.proposal.id)}, then akm proposal accept ${shortId(r.proposal.id)}`)])
    ].join("\n")
}

const conflictsView: View<RulesConflicts> = {
  text: (r, s) =>
    [
      ...r.conflicts.flatMap((c) => [
        `${s.red("conflict")} rule ${c.a.rule} ↔ rule ${c.b.rule} on "${c.on}"`,
        `  ${c.a.path}:${c.a.line}  ${c.a.must ? "must" : "must not"}: ${c.a.subject}`,
        `  ${c.b.path}:${c.b.line}  ${c.b.must ? "must" : "must not"}: ${c.b.subject}`,
        c.overlap === "files"
          ? `  both apply to ${c.filesTotal} file${c.filesTotal === 1 ? "" : "s"}: ${c.files.join(", ")}${c.filesTotal > c.files.length ? ", …" : ""}`
          : c.overlap === "everything" ? "  both apply to every file (one scope is empty)" : "  their scopes overlap (no tracked file matches both yet)",
        "  decide it in an ADR (nothing is resolved automatically):",
        ...c.adrStub.trimEnd().split("\n").map((l) => (l === "" ? "" : `    ${l}`)),
        ""
      ]),
      ...r.findings.map((f) => s.yellow(`${f.path}:${f.line}  ${f.code}  ${f.message}`)),
      ...r.revisits.map((q) => s.yellow(`${q.path}:${q.line}  revisit  ${q.question}`)),
      r.ok
        ? `${s.green("✓")} no conflicts among ${r.rules} rule${r.rules === 1 ? "" : "s"} (${r.files} tracked files)`
        : `${s.red("✗")} ${r.conflicts.length} conflict${r.conflicts.length === 1 ? "" : "s"} among ${r.rules} rules`
    ].join("\n"),
  rows: (r) => r.conflicts
}

const listCommand = Command.make("list", { bundle, ...globalOptions }, (o) => runCommand(o, rulesList(where(o)), listView)).pipe(
  Command.withDescription("List the project's rules with their status and scope; rules due for a revisit and rules with an evolution waiting are named. Example: akm rules list")
)

const showCommand = Command.make("show", { rule, bundle, ...globalOptions }, (o) => runCommand(o, rulesShow({ ...where(o), rule: o.rule }), showView)).pipe(
  Command.withDescription("Print one rule with its links and its evolution chain. Example: akm rules show 07")
)

const causedCommand = Command.make(
  "caused",
  { rule, failure: Args.text({ name: "failure" }).pipe(Args.withDescription("the failure's id as `akm ledger list` shows it")), bundle, ...globalOptions },
  (o) => runCommand(o, rulesCaused({ ...where(o), rule: o.rule, failure: o.failure }), causedView)
).pipe(Command.withDescription("Record that a rule's enforcement caused a failure (frontmatter only; the body is kept byte for byte). Example: akm rules caused 07 migration-blocked-9a1b2c3d4e5f"))

const evolveCommand = Command.make("evolve", { rule, bundle, ...globalOptions }, (o) => runCommand(o, rulesEvolve({ ...where(o), rule: o.rule }), evolveView)).pipe(
  Command.withDescription("Draft the rule that supersedes one whose enforcement caused a failure: it must satisfy both; the old rule is kept and marked. Example: akm rules evolve 07")
)

const conflictsCommand = Command.make("conflicts", { bundle, ...globalOptions }, (o) => runCommand(o, rulesConflicts(where(o)), conflictsView, (r) => (r.ok ? 0 : 1))).pipe(
  Command.withDescription("Report active rules whose scopes overlap and whose mandates disagree, with the files both match and an ADR stub; exits 1 on a conflict. Example: akm rules conflicts")
)

export const rulesCommand = Command.make("rules").pipe(
  Command.withDescription("List, show, evolve and check the project's rules: conflicts are reported, never resolved. Example: akm rules conflicts"),
  Command.withSubcommands([listCommand, showCommand, causedCommand, evolveCommand, conflictsCommand])
)
