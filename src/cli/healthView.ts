import type { HealthResult, MemoryHealth } from "../programs/health.js"
import { escapeHtml, formatBytes, htmlPage, table, type Style, type View } from "./render.js"
import { plural } from "../domain/Plural.js"
import { storageText } from "./storageText.js"

/** `akm health`'s view, shared by the command (cli/health.ts) and its fast path (cli/fast/health.ts). */

/** Bundles holding memory items, with their tier. */
const memoryTiers = (r: HealthResult) =>
  r.bundles.flatMap((b) => (b.memory === null ? [] : [{ bundle: b.bundle, memory: b.memory }]))

const highWater = (m: MemoryHealth) => `${plural(m.highWaterItems, "item")} / ${formatBytes(m.highWaterBytes)}`

const isOk = (b: HealthResult["bundles"][number]) => b.status.length === 1 && b.status[0] === "ok"

/** The status column: the program's status words (the attention list's), never a judgement of its own. */
const statusText = (b: HealthResult["bundles"][number], s: Style) => (isOk(b) ? s.green("ok") : s.yellow(b.status.join(", ")))

const pendingUnknown = (r: HealthResult): string =>
  r.storage.backend === "postgres" && !r.storage.reachable ? "unknown (the PostgreSQL server is unreachable)" : "unknown (state.db is damaged)"

export const healthView: View<HealthResult> = {
  text: (r, s) =>
    [
      r.bundles.length === 0
        ? "no bundles yet — add one with: akm bundle add <folder>"
        : table([
          [s.dim("BUNDLE"), s.dim("ADAPTER"), s.dim("ITEMS"), s.dim("INDEXED"), s.dim("STATUS")],
          ...r.bundles.map((b) => [
            b.bundle,
            b.adapter ?? "-",
            String(b.items),
            b.indexedAt ?? "never",
            statusText(b, s)
          ])
        ]),
      ...(memoryTiers(r).length === 0
        ? []
        : [
          "",
          table([
            [s.dim("MEMORY"), s.dim("ITEMS"), s.dim("SIZE"), s.dim("HIGH WATER"), s.dim("PRESSURE")],
            ...memoryTiers(r).map(({ bundle, memory }) => [
              bundle,
              String(memory.items),
              formatBytes(memory.bytes),
              highWater(memory),
              memory.pressure === "high" ? s.yellow("high") : s.green("ok")
            ])
          ])
        ]),
      "",
      table(r.databases.map((d) => [s.dim(d.name), d.bytes === null ? "missing" : formatBytes(d.bytes), d.damaged ? s.yellow("damaged") : "", s.dim(d.path)])),
      ...(r.storage.backend === "sqlite" ? [] : [`${s.dim("storage:")} ${storageText(r.storage)}`]),
      `${s.dim("pending proposals:")} ${r.proposals.pending ?? pendingUnknown(r)}`,
      "",
      r.ok
        ? `${s.green("✓")} nothing needs attention`
        : [`${s.yellow("!")} ${r.attention.length} thing${r.attention.length === 1 ? " needs" : "s need"} attention:`, ...r.attention.map((a) => `  - ${a.message} ${s.dim(`(${a.hint})`)}`)].join("\n")
    ].join("\n"),
  html: (r) => {
    const cell = (text: string, cls = "") => `<td${cls === "" ? "" : ` class="${cls}"`}>${escapeHtml(text)}</td>`
    const status = (b: HealthResult["bundles"][number]) => (isOk(b) ? cell("ok", "ok") : cell(b.status.join(", "), "warn"))
    return htmlPage(
      "akm health",
      [
        "<h1>akm health</h1>",
        r.ok ? `<p class="ok">✓ nothing needs attention</p>` : `<p class="warn">${r.attention.length} thing(s) need attention</p><ul>${r.attention.map((a) => `<li>${escapeHtml(a.message)} — ${escapeHtml(a.hint)}</li>`).join("")}</ul>`,
        "<h2>Bundles</h2>",
        `<table><tr><th>bundle</th><th>adapter</th><th>items</th><th>indexed</th><th>errors</th><th>warnings</th><th>status</th></tr>${r.bundles
          .map((b) => `<tr>${cell(b.bundle)}${cell(b.adapter ?? "-")}${cell(String(b.items))}${cell(b.indexedAt ?? "never")}${cell(String(b.diagnostics?.error ?? 0))}${cell(String(b.diagnostics?.warning ?? 0))}${status(b)}</tr>`)
          .join("")}</table>`,
        ...(memoryTiers(r).length === 0
          ? []
          : [
            "<h2>Memory</h2>",
            `<table><tr><th>bundle</th><th>items</th><th>size</th><th>high water</th><th>low water</th><th>pressure</th></tr>${memoryTiers(r)
              .map(({ bundle, memory: m }) =>
                `<tr>${cell(bundle)}${cell(String(m.items))}${cell(formatBytes(m.bytes))}${cell(highWater(m))}${cell(plural(m.lowWaterItems, "item"))}${m.pressure === "high" ? cell("high", "warn") : cell("ok", "ok")}</tr>`
              )
              .join("")}</table>`
          ]),
        "<h2>Databases</h2>",
        `<table>${r.databases.map((d) => `<tr>${cell(d.name)}${cell(d.bytes === null ? "missing" : formatBytes(d.bytes))}${d.damaged ? cell("damaged", "warn") : cell("")}${cell(d.path)}</tr>`).join("")}</table>`,
        ...(r.storage.backend === "sqlite" ? [] : [`<p>Storage: ${escapeHtml(storageText(r.storage))}</p>`]),
        `<p>Pending proposals: ${r.proposals.pending ?? pendingUnknown(r)}</p>`
      ].join("\n")
    )
  },
  rows: (r) => r.bundles
}
