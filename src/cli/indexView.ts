import type { BundleIndexReport, IndexResult } from "../programs/indexBundles.js"
import { table, type Style, type View } from "./render.js"

/** How `akm index` prints its result; shared by cli/index.ts and its fast path (cli/fast/index.ts). */

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
