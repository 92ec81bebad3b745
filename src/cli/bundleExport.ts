import * as Args from "@effect/cli/Args"
import * as Command from "@effect/cli/Command"
import * as Options from "@effect/cli/Options"
import { shortId } from "../domain/Proposal.js"
import { bundleExport, type BundleExportResult } from "../programs/bundle/export.js"
import { globalOptions } from "./options.js"
import type { View } from "./render.js"
import { runCommand } from "./run.js"

const exportText: View<BundleExportResult>["text"] = (r, s) => {
  const head = r.dryRun
    ? `${s.dim("dry run:")} ${r.title}`
    : `${r.verdict === "pass" ? s.yellow("…") : s.red("✗")} proposal ${shortId(r.id ?? "")} is ${r.status ?? "pending"}: ${r.title}`
  const pages = r.pages.map((p) => `  ${p.ref ?? `${r.bundle}//${p.path}`}  ${s.dim(`← ${p.url}`)}`)
  const skipped = r.skipped.map((p) => s.yellow(`  skipped ${p.page}: ${p.reason}`))
  const findings = r.diagnostics.map((d) => `  ${d.severity === "error" ? s.red(d.severity) : s.yellow(d.severity)} ${d.path}: ${d.message} [${d.code}]`)
  return [head, ...pages, ...skipped, ...findings, s.dim(`  ${r.hint}`)].join("\n")
}

const exportView: View<BundleExportResult> = {
  text: exportText,
  rows: (r) => [...r.pages, ...r.skipped.map((p) => ({ ...p, skipped: true }))]
}

/** `akm bundle export`: registered as a subcommand of `akm bundle`. */
export const bundleExportCommand = Command.make(
  "export",
  {
    source: Args.text({ name: "website-bundle" }).pipe(Args.withDescription("the website-snapshot bundle to export pages from")),
    to: Options.text("to").pipe(Options.withPseudoName("bundle"), Options.withDescription("the writable bundle the pages become items of (akm, okf, …)")),
    pages: Options.text("pages").pipe(Options.withPseudoName("glob"), 
      Options.withDescription("a glob over the page path (guide/*.md) or the URL path (/guide/**); repeat it for several (default: every page)"),
      Options.repeated
    ),
    dryRun: Options.boolean("dry-run").pipe(Options.withDescription("show what would be exported and validate it; store no proposal")),
    ...globalOptions
  },
  (o) => runCommand(o, bundleExport({ source: o.source, to: o.to, pages: o.pages, dryRun: o.dryRun }), exportView)
).pipe(
  Command.withDescription("Copy website snapshot pages into a writable bundle as native items, through one proposal to review. Example: akm bundle export exdocs --to notes --pages 'guide/**'")
)
