import { stringify as toYaml } from "yaml"
import type { Format } from "./options.js"
import type { ErrorReport } from "./exitCodes.js"

/** How one result looks for humans; JSON/YAML shapes come from the result itself. */
export interface View<A> {
  readonly text: (value: A, style: Style) => string
  /** Markdown; falls back to the text view. */
  readonly md?: (value: A) => string
  /** A self-contained HTML page; default: the text view in a page. */
  readonly html?: (value: A) => string
  /** The rows written one per line for jsonl; default: the whole result as one line. */
  readonly rows?: (value: A) => ReadonlyArray<unknown>
}

export interface Style {
  readonly bold: (s: string) => string
  readonly dim: (s: string) => string
  readonly red: (s: string) => string
  readonly green: (s: string) => string
  readonly yellow: (s: string) => string
}

const plain: Style = { bold: (s) => s, dim: (s) => s, red: (s) => s, green: (s) => s, yellow: (s) => s }
const ansi = (code: number) => (s: string) => `\u001b[${code}m${s}\u001b[0m`
const coloured: Style = { bold: ansi(1), dim: ansi(2), red: ansi(31), green: ansi(32), yellow: ansi(33) }

/** Colour only on a TTY, and never when NO_COLOR is set (spec 09 §1). */
export const styleFor = (isTTY: boolean, env: Readonly<Record<string, string | undefined>>): Style =>
  isTTY && (env.NO_COLOR === undefined || env.NO_COLOR === "") ? coloured : plain

/** Every JSON result carries schemaVersion 1 (spec 09 §1). */
export const versioned = (value: unknown): unknown =>
  value !== null && typeof value === "object" && !Array.isArray(value) ? { schemaVersion: 1, ...value } : { schemaVersion: 1, value }

export const renderResult = <A>(format: Format, value: A, view: View<A>, style: Style): string => {
  switch (format) {
    case "json":
      return `${JSON.stringify(versioned(value), null, 2)}\n`
    case "jsonl": {
      const rows = view.rows === undefined ? [versioned(value)] : view.rows(value).map(versioned)
      return rows.map((row) => `${JSON.stringify(row)}\n`).join("")
    }
    case "yaml":
      return toYaml(versioned(value))
    case "md":
      return ensureNewline(view.md?.(value) ?? view.text(value, plain))
    case "html":
      return ensureNewline(view.html?.(value) ?? htmlPage("akm", `<pre>${escapeHtml(view.text(value, plain))}</pre>`))
    case "text":
      return ensureNewline(view.text(value, style))
  }
}

export const escapeHtml = (s: string): string =>
  s.replace(/&/g, "&amp;").replace(/</g, "&lt;").replace(/>/g, "&gt;").replace(/"/g, "&quot;")

/** A self-contained page: inline styles, no scripts, no external resources. */
export const htmlPage = (title: string, body: string): string =>
  `<!doctype html>
<html lang="en"><head><meta charset="utf-8"><title>${escapeHtml(title)}</title>
<style>body{font:14px/1.5 system-ui,sans-serif;margin:2rem;color:#222}table{border-collapse:collapse}td,th{padding:.25rem .75rem;border-bottom:1px solid #ddd;text-align:left}th{color:#666;font-weight:600}.ok{color:#18794e}.warn{color:#ad5700}pre{white-space:pre-wrap}</style>
</head><body>
${body}
</body></html>`

/** Errors that stop a command: stdout stays empty; stderr gets the envelope (machine formats) or two lines (text). */
export const renderError = (format: Format, report: ErrorReport, style: Style): string =>
  format === "text"
    ? `${style.red("error:")} ${report.message}\n${report.hint === "" ? "" : `${style.dim("hint:")} ${report.hint}\n`}`
    : `${JSON.stringify({ ok: false, error: { code: report.code, message: report.message, hint: report.hint } })}\n`

const ensureNewline = (s: string): string => (s === "" || s.endsWith("\n") ? s : `${s}\n`)

/** Aligns rows of cells into columns. */
export const table = (rows: ReadonlyArray<ReadonlyArray<string>>): string => {
  const widths: Array<number> = []
  for (const row of rows) row.forEach((cell, i) => (widths[i] = Math.max(widths[i] ?? 0, visibleLength(cell))))
  return rows.map((row) => row.map((cell, i) => (i === row.length - 1 ? cell : cell + " ".repeat((widths[i] ?? 0) - visibleLength(cell)))).join("  ")).join("\n")
}

// eslint-disable-next-line no-control-regex
const visibleLength = (s: string): number => s.replace(/\u001b\[\d+m/g, "").length

export const formatBytes = (bytes: number | null): string =>
  bytes === null ? "-" : bytes < 1024 ? `${bytes} B` : bytes < 1024 * 1024 ? `${(bytes / 1024).toFixed(1)} KiB` : `${(bytes / 1024 / 1024).toFixed(1)} MiB`
