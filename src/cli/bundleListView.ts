import { sourceLocator } from "../domain/Source.js"
import type { BundleView } from "../programs/bundle/view.js"
import { table, type View } from "./render.js"

// The view of `akm bundle list`, shared by the @effect/cli command (bundle.ts) and the start-up fast path (fast/bundleList.ts).

export const listView: View<{ bundles: ReadonlyArray<BundleView>; defaultBundle: string | null }> = {
  text: (r, s) =>
    r.bundles.length === 0
      ? "no bundles yet — add one with: akm bundle add <folder>"
      : table([
        [s.dim("NAME"), s.dim("ADAPTER"), s.dim("ITEMS"), s.dim("WRITABLE"), s.dim("SOURCE")],
        ...r.bundles.map((b) => [
          `${b.name}${b.default ? "*" : ""}`,
          b.adapter,
          String(b.items),
          b.writable ? "yes" : "no",
          `${b.source.kind} ${sourceLocator(b.source)}${b.partial === true ? s.yellow(" (partial)") : ""}${b.stale === undefined ? "" : s.yellow(" (stale)")}`
        ])
      ]),
  md: (r) =>
    ["| name | adapter | items | writable | source |", "|---|---|---|---|---|", ...r.bundles.map((b) => `| ${b.name}${b.default ? " (default)" : ""} | ${b.adapter} | ${b.items} | ${b.writable ? "yes" : "no"} | ${sourceLocator(b.source)} |`)].join("\n"),
  rows: (r) => r.bundles
}
