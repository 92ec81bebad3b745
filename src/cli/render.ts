import { randomBytes } from "node:crypto"
import { stringify as toYaml } from "yaml"
import { neutralise } from "../domain/TerminalText.js"
import type { Format } from "./options.js"
import type { RedactedReport } from "./exitCodes.js"

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

// --- terminal safety ---------------------------------------------------------------------
//
// Text from bundles (names, descriptions, content, file names) reaches the
// terminal through views. Rather than trust every view, the text that leaves
// renderResult/renderError is neutralised once here (domain/TerminalText.ts):
// every C0 control but newline and tab, DEL and every C1 control becomes
// visible caret text, so an escape sequence prints as inert characters.
// akm's own colours cannot be forged by content: the styler writes a marker
// carrying a per-process random token, and only markers with that token
// become ANSI codes after the neutralising pass.

/**
 * Unforgeable by bundle text: chosen once per process, on the first styled
 * text — a command that prints none never loads node:crypto for it
 * (docs/decisions/0055-read-command-startup.md).
 */
let styleToken: { readonly token: string; readonly mark: RegExp } | undefined
const style = () => {
  if (styleToken === undefined) {
    const token = randomBytes(8).toString("hex")
    styleToken = { token, mark: new RegExp(`\uE000${token}:(\\d+)\uE001`, "g") }
  }
  return styleToken
}
const styleMark = (code: number) => `\uE000${style().token}:${code}\uE001`
/** Text without a style mark is returned as it is: no mark can match it. */
const replaceMarks = (s: string, by: (code: string) => string): string => (s.includes("\uE000") ? s.replace(style().mark, (_, code: string) => by(code)) : s)

/** Makes text safe for a terminal (domain/TerminalText.ts). */
export { neutralise }

/** Neutralises a rendered text and then turns akm's own style markers into ANSI codes. */
export const forTerminal = (s: string): string => replaceMarks(neutralise(s), (code) => `\u001b[${code}m`)

/** JSON.stringify leaves DEL and C1 controls raw; escape them so JSON is inert on a terminal too. */
const escapeJsonControls = (s: string): string => s.replace(/[\u007f-\u009f]/g, (c) => `\\u${c.charCodeAt(0).toString(16).padStart(4, "0")}`)

/** The yaml library double-quotes strings holding DEL or C1 controls but leaves them raw; `\xHH` is their escape there. */
const escapeYamlControls = (s: string): string => s.replace(/[\u007f-\u009f]/g, (c) => `\\x${c.charCodeAt(0).toString(16)}`)

const ansi = (code: number) => (s: string) => `${styleMark(code)}${s}${styleMark(0)}`
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
      return escapeJsonControls(`${JSON.stringify(versioned(value), null, 2)}\n`)
    case "jsonl": {
      const rows = view.rows === undefined ? [versioned(value)] : view.rows(value).map(versioned)
      return escapeJsonControls(rows.map((row) => `${JSON.stringify(row)}\n`).join(""))
    }
    case "yaml":
      return escapeYamlControls(toYaml(versioned(value)))
    case "md":
      return forTerminal(ensureNewline(view.md?.(value) ?? view.text(value, plain)))
    case "html":
      return forTerminal(ensureNewline(view.html?.(value) ?? htmlPage("akm", `<pre>${escapeHtml(view.text(value, plain))}</pre>`)))
    case "text":
      return forTerminal(ensureNewline(view.text(value, style)))
  }
}

/** Markdown's special characters in running text, escaped with a backslash. */
export const escapeMarkdown = (s: string): string => s.replace(/[\\`*_[\]<>#|]/g, (c) => `\\${c}`)

/** A fenced code block around `text` whose fence no run of backticks inside it can close. */
export const markdownFence = (text: string, language = ""): string => {
  const longest = Math.max(0, ...(text.match(/`+/g) ?? []).map((run) => run.length))
  const fence = "`".repeat(Math.max(3, longest + 1))
  return `${fence}${language}\n${text.endsWith("\n") ? text : `${text}\n`}${fence}`
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

/** Errors that stop a command: stdout stays empty; stderr gets the envelope (machine formats) or two lines (text), both only redacted (redactReport). */
export const renderError = (format: Format, report: RedactedReport, style: Style): string =>
  format === "text"
    ? forTerminal(`${style.red("error:")} ${report.message}\n${report.hint === "" ? "" : `${style.dim("hint:")} ${report.hint}\n`}`)
    : escapeJsonControls(`${JSON.stringify({ ok: false, error: { code: report.code, message: report.message, hint: report.hint } })}\n`)

const ensureNewline = (s: string): string => (s === "" || s.endsWith("\n") ? s : `${s}\n`)

/** Aligns rows of cells into columns. */
export const table = (rows: ReadonlyArray<ReadonlyArray<string>>): string => {
  const widths: Array<number> = []
  for (const row of rows) row.forEach((cell, i) => (widths[i] = Math.max(widths[i] ?? 0, visibleLength(cell))))
  return rows.map((row) => row.map((cell, i) => (i === row.length - 1 ? cell : cell + " ".repeat((widths[i] ?? 0) - visibleLength(cell)))).join("  ")).join("\n")
}

/** Width on the terminal: without style markers, with controls as they will print. */
const visibleLength = (s: string): number => neutralise(replaceMarks(s, () => "")).length

export const formatBytes = (bytes: number | null): string =>
  bytes === null ? "-" : bytes < 1024 ? `${bytes} B` : bytes < 1024 * 1024 ? `${(bytes / 1024).toFixed(1)} KiB` : `${(bytes / 1024 / 1024).toFixed(1)} MiB`
