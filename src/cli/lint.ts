import * as Command from "@effect/cli/Command"
import * as Options from "@effect/cli/Options"
import { Option } from "effect"
import { lint, type LintBundle, type LintResult } from "../programs/lint.js"
import { globalOptions } from "./options.js"
import type { Style, View } from "./render.js"
import { runCommand } from "./run.js"

const plural = (n: number, word: string): string => `${n} ${word}${n === 1 ? "" : "s"}`

const countsText = (c: LintResult["counts"]): string => `${plural(c.error, "error")}, ${plural(c.warning, "warning")}, ${c.info} info`

/** One bundle: a header, then each file's path and its aligned `line  severity  code  message` rows. */
const bundleText = (b: LintBundle, s: Style): ReadonlyArray<string> => {
  const header = `${s.bold(b.bundle)}  ${s.dim(`${b.adapter}, ${plural(b.items, "item")}`)}`
  const rows = b.files.flatMap((f) => f.diagnostics)
  const width = {
    line: Math.max(1, ...rows.map((d) => String(d.line ?? "-").length)),
    severity: Math.max(...rows.map((d) => d.severity.length), 0),
    code: Math.max(...rows.map((d) => d.code.length), 0)
  }
  const colour = { error: s.red, warning: s.yellow, info: s.dim }
  const lines = [rows.length === 0 ? `${header}  ${s.green("✓")} no problems` : header]
  for (const file of b.files) {
    lines.push(`  ${file.path}`)
    for (const d of file.diagnostics) {
      const line = String(d.line ?? "-").padStart(width.line)
      const severity = colour[d.severity](d.severity.padEnd(width.severity))
      lines.push(`    ${line}  ${severity}  ${d.code.padEnd(width.code)}  ${d.message}${d.fixable === true ? s.dim(" (fixable)") : ""}`)
    }
  }
  if (b.fix !== undefined) {
    lines.push(`  ${s.dim("fixes:")} ${b.fix.applied} of ${b.fix.available} applied${b.fix.note === undefined ? "" : ` — ${b.fix.note}`}`)
  }
  return lines
}

export const lintView: View<LintResult> = {
  text: (r, s) =>
    r.bundles.length === 0
      ? "no bundles to lint — add one with: akm bundle add <folder>"
      : [
        ...r.bundles.flatMap((b) => [...bundleText(b, s), ""]),
        `${r.ok ? s.green("✓") : s.red("✗")} ${countsText(r.counts)} in ${plural(r.bundles.length, "bundle")}`
      ].join("\n"),
  rows: (r) => r.bundles.flatMap((b) => b.files.flatMap((f) => f.diagnostics.map((d) => ({ bundle: b.bundle, path: f.path, ...d }))))
}

export const lintCommand = Command.make(
  "lint",
  {
    bundle: Options.text("bundle").pipe(Options.withDescription("lint only this bundle (default: every configured bundle)"), Options.optional),
    strict: Options.boolean("strict").pipe(Options.withDescription("conformance findings (e.g. okf-nonconformant) become errors")),
    fix: Options.boolean("fix").pipe(Options.withDescription("apply the fixes that diagnostics carry (writable bundles only)")),
    failOn: Options.choice("fail-on", ["error", "warning"] as const).pipe(
      Options.withDescription("exit 1 on errors (default) or also on warnings"),
      Options.withDefault("error" as const)
    ),
    ...globalOptions
  },
  (o) =>
    runCommand(
      o,
      lint({ bundle: Option.getOrUndefined(o.bundle), strict: o.strict, fix: o.fix, failOn: o.failOn }),
      lintView,
      (result) => (result.ok ? 0 : 1)
    )
).pipe(Command.withDescription("Check bundles with their adapters' native rules; exits 1 when an error remains. Example: akm lint --bundle notes --strict"))
