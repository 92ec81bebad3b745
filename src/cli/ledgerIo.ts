import * as Args from "@effect/cli/Args"
import * as Command from "@effect/cli/Command"
import * as Options from "@effect/cli/Options"
import { Option } from "effect"
import { importCi, type ImportCiResult } from "../programs/ledger/importCi.js"
import { mineGit, type MineGitResult } from "../programs/ledger/mineGit.js"
import { globalOptions } from "./options.js"
import type { View } from "./render.js"
import { callerContext, runCommand } from "./run.js"

const plural = (n: number, word: string) => `${n} ${word}${n === 1 ? "" : "s"}`
const SHA = 12
/** Long lists are cut in text; json, yaml and jsonl carry every entry. */
const SHOWN = 20
const more = <A>(list: ReadonlyArray<A>): ReadonlyArray<string> => (list.length > SHOWN ? [`  … and ${list.length - SHOWN} more (--format json lists all)`] : [])

export const importCiView: View<ImportCiResult> = {
  text: (r, s) =>
    [
      `${s.green("✓")} ${r.file}: ${plural(r.seen, r.format === "junit" ? "testcase" : "row")}, ${plural(r.failures.length, "failure")} → ${r.created} new, ${r.appended} recurring, ${r.unchanged} already recorded`,
      ...r.failures.map((f) => `  ${f.created ? s.yellow("new") : f.changed ? s.green("+ci") : s.dim("same")}  failure/${f.id}  ${f.date}  ${f.module} · ${f.operation}${f.occurrences > 1 ? s.dim(` (${f.occurrences} occurrences)`) : ""}`)
    ].join("\n")
}

export const mineGitView: View<MineGitResult> = {
  text: (r, s) => {
    const lines = [`${r.root}: ${plural(r.commits, "commit")} since ${r.since}, ${plural(r.matched.length + r.unmatched.length, "fix commit")}`]
    if (r.matched.length > 0) {
      lines.push("", s.bold("Matched (git occurrences):"))
      for (const c of r.matched) {
        for (const hit of c.records) lines.push(`  ${c.sha.slice(0, SHA)} ${c.date} ${c.subject}`, `    → failure/${hit.id}${hit.after === undefined ? " (names its fingerprint)" : ` (after ${hit.after})`}${hit.added ? "" : s.dim(" already recorded")}`)
      }
    }
    if (r.unmatched.length > 0) {
      lines.push("", s.bold(`Not recorded (${r.unmatched.length}): something broke and no failure says what`))
      for (const c of r.unmatched.slice(0, SHOWN)) lines.push(`  ${c.sha.slice(0, SHA)} ${c.date} ${c.subject}`)
      lines.push(...more(r.unmatched))
      lines.push(s.dim("  record one with: akm ledger add failure --title … --field module=… --field operation=… --field error_class=…"))
    }
    const churned = r.churn.filter((c) => c.commits > 0)
    if (churned.length > 0) {
      lines.push("", s.bold("Churn of recorded modules:"))
      for (const c of churned) lines.push(`  ${c.module}: ${plural(c.commits, "commit")}, ${plural(c.files, "file")}`)
    }
    if (churned.length < r.churn.length) lines.push(s.dim(`${plural(r.churn.length - churned.length, "recorded module")} unchanged in the period`))
    if (r.hotspots.length > 0) {
      lines.push("", s.bold("Repeated churn (≥ 3 commits within 14 days):"))
      for (const h of r.hotspots.slice(0, SHOWN)) lines.push(`  ${h.path}: ${plural(h.commits, "commit")} ${h.from}..${h.to}`)
      lines.push(...more(r.hotspots))
    }
    if (r.unreadable.length > 0) lines.push("", s.yellow(`${plural(r.unreadable.length, "failure record")} could not be read and took no part (akm ledger verify): ${r.unreadable.join(", ")}`))
    return lines.join("\n")
  }
}

const bundleOption = Options.text("bundle").pipe(Options.withDescription("the project bundle (default: the one around the current folder)"), Options.optional)

export const ledgerImportCiCommand = Command.make(
  "import-ci",
  {
    file: Args.text({ name: "report" }).pipe(Args.withDescription("a JUnit XML report, or a .tsv file: date, module, operation, error_class, message")),
    bundle: bundleOption,
    ...globalOptions
  },
  (o) => runCommand(o, importCi({ file: o.file, bundle: Option.getOrUndefined(o.bundle), ...callerContext() }), importCiView)
).pipe(Command.withDescription("Import failing tests from a CI report: each is a ci occurrence of its failure record, or a new record. Example: akm ledger import-ci reports/junit.xml"))

export const ledgerMineGitCommand = Command.make(
  "mine-git",
  {
    since: Options.text("since").pipe(Options.withPseudoName("span"), Options.withDescription("how far back: days or weeks (90d, 12w) or an ISO date (default: 90d)"), Options.withDefault("90d")),
    bundle: bundleOption,
    ...globalOptions
  },
  (o) => runCommand(o, mineGit({ since: o.since, bundle: Option.getOrUndefined(o.bundle), cwd: callerContext().cwd }), mineGitView)
).pipe(Command.withDescription("Cross-check the ledger against git: fix commits that match a failure become git occurrences; the rest are reported. Example: akm ledger mine-git --since 30d"))
