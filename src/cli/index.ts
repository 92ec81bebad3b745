import * as Command from "@effect/cli/Command"
import * as Options from "@effect/cli/Options"
import { Option } from "effect"
import { indexBundles, type BundleIndexReport, type IndexResult } from "../programs/indexBundles.js"
import { globalOptions } from "./options.js"
import { table, type Style, type View } from "./render.js"
import { runCommand } from "./run.js"

const plural = (n: number, word: string): string => `${n} ${word}${n === 1 ? "" : "s"}`

const changes = (r: { readonly added: number; readonly updated: number; readonly removed: number; readonly unchanged: number }): string =>
  `+${r.added} ~${r.updated} -${r.removed} =${r.unchanged}`

const diagnosticsText = (d: BundleIndexReport["diagnostics"]): string => `${plural(d.error, "error")}, ${plural(d.warning, "warning")}`

const statusText = (r: BundleIndexReport, s: Style): string =>
  r.status === "stale" ? s.yellow("stale") : r.status === "unchanged" ? s.dim("unchanged") : r.status === "planned" ? s.yellow("would change") : s.green("indexed")

/** One aligned row per bundle, then the totals; `+added ~updated -removed =unchanged`. */
export const indexView: View<IndexResult> = {
  text: (r, s) => {
    const kept = r.keptBundles.length === 0
      ? []
      : [`${s.dim("left in the shared index (not configured on this server; --prune removes them):")} ${r.keptBundles.join(", ")}`]
    if (r.bundles.length === 0 && r.removedBundles.length === 0) return ["no bundles to index — add one with: akm bundle add <folder>", ...kept].join("\n")
    const rows = r.bundles.map((b) => [
      s.bold(b.bundle),
      b.adapter ?? "-",
      statusText(b, s),
      changes(b),
      plural(b.files, "file"),
      diagnosticsText(b.diagnostics),
      `${b.durationMs} ms`,
      b.reason === undefined || b.status === "indexed" ? "" : s.dim(b.reason)
    ])
    return [
      ...(rows.length === 0 ? [] : [table(rows).split("\n").map((line) => line.trimEnd()).join("\n")]),
      ...(r.removedBundles.length === 0 ? [] : [`${s.dim("removed from the index (no longer configured):")} ${r.removedBundles.join(", ")}`]),
      ...kept,
      `${r.dryRun ? s.yellow("dry run, nothing written:") : s.green("✓")} ${plural(r.totals.items, "item")} in ${plural(r.bundles.length, "bundle")} (${changes(r.totals)}), ${diagnosticsText(r.totals.diagnostics)}, ${r.durationMs} ms`
    ].join("\n")
  },
  rows: (r) => r.bundles
}

export const indexCommand = Command.make(
  "index",
  {
    bundle: Options.text("bundle").pipe(Options.withDescription("index only this bundle (default: every configured bundle)"), Options.optional),
    full: Options.boolean("full").pipe(Options.withDescription("rescan every file, ignoring what the last run recorded")),
    dryRun: Options.boolean("dry-run").pipe(Options.withDescription("report what would be added, updated and removed; write nothing")),
    prune: Options.boolean("prune").pipe(
      Options.withDescription("team mode (storage.kind postgres): also remove from the shared index the bundles this server does not configure")
    ),
    ...globalOptions
  },
  (o) => runCommand(o, indexBundles({ bundle: Option.getOrUndefined(o.bundle), full: o.full, dryRun: o.dryRun, prune: o.prune }), indexView)
).pipe(
  Command.withDescription(
    "Bring the local index up to date with your bundles. Unchanged bundles are only stat'ed; bundles never change. Example: akm index --bundle notes --dry-run"
  )
)
