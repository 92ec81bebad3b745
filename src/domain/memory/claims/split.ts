import { ABBREVIATIONS } from "./vocabulary.js"

/**
 * Splits a markdown body into claim texts (spec 06 §8.4): one per sentence or
 * clause (`;`), bullet, numbered item and table row. Headings name a topic and
 * make no claim; a fenced code block is one claim, kept whole; inline code
 * spans are never split.
 */
export const splitClaimTexts = (body: string): ReadonlyArray<string> => {
  const claims: Array<string> = []
  const lines = body.replace(/\r\n?/g, "\n").split("\n")
  let paragraph: Array<string> = []
  const flush = () => {
    if (paragraph.length > 0) claims.push(...sentences(paragraph.join(" ")))
    paragraph = []
  }
  for (let i = 0; i < lines.length; i++) {
    const line = lines[i]!
    const trimmed = line.trim()
    if (/^(```|~~~)/.test(trimmed)) {
      flush()
      const fence = trimmed.slice(0, 3)
      const code: Array<string> = []
      for (i++; i < lines.length && !lines[i]!.trim().startsWith(fence); i++) code.push(lines[i]!)
      if (code.join("").trim() !== "") claims.push(code.join("\n").trim())
      continue
    }
    if (trimmed === "" || /^(-{3,}|\*{3,}|_{3,})$/.test(trimmed)) {
      flush()
      continue
    }
    if (/^#{1,6}\s/.test(trimmed)) {
      flush()
      continue
    }
    if (trimmed.startsWith("|")) {
      flush()
      if (isTableSeparator(trimmed)) continue
      const next = lines[i + 1]?.trim() ?? ""
      if (isTableSeparator(next)) continue // a header row names the columns
      const row = tableRow(trimmed)
      if (row !== "") claims.push(row)
      continue
    }
    const unquoted = trimmed.replace(/^(>\s?)+/, "")
    const item = /^(?:[-*+]|\d{1,3}[.)])\s+(.*)$/.exec(unquoted)
    if (item !== null) {
      flush()
      paragraph = [item[1]!]
      // continuation lines of the item are indented and are not items themselves
      while (i + 1 < lines.length && /^\s{2,}\S/.test(lines[i + 1]!) && !/^\s*(?:[-*+]|\d{1,3}[.)])\s/.test(lines[i + 1]!)) {
        paragraph.push(lines[++i]!.trim())
      }
      flush()
      continue
    }
    paragraph.push(unquoted)
  }
  flush()
  return claims.map((claim) => claim.replace(/\s+/g, " ").trim()).filter((claim) => /[\p{L}\p{N}]/u.test(claim))
}

const isTableSeparator = (line: string): boolean => /^\|?[\s:|-]+\|?$/.test(line) && line.includes("-") && line.includes("|")

/** `| a | b | c |` → "a: b, c" — the first cell is what the row is about. */
const tableRow = (line: string): string => {
  const cells = line
    .replace(/^\|/, "")
    .replace(/\|$/, "")
    .split("|")
    .map((cell) => cell.trim())
    .filter((cell) => cell !== "")
  if (cells.length <= 1) return cells[0] ?? ""
  return `${cells[0]}: ${cells.slice(1).join(", ")}`
}

/**
 * Sentences and `;` clauses of one paragraph. A full stop ends a sentence
 * only before whitespace and not after an abbreviation; code spans are opaque.
 */
const sentences = (paragraph: string): ReadonlyArray<string> => {
  const out: Array<string> = []
  let start = 0
  let inCode = false
  for (let i = 0; i < paragraph.length; i++) {
    const c = paragraph[i]!
    if (c === "`") inCode = !inCode
    if (inCode) continue
    const next = paragraph[i + 1]
    if (c === ";" && (next === undefined || /\s/.test(next))) {
      out.push(paragraph.slice(start, i))
      start = i + 1
    } else if ((c === "." || c === "!" || c === "?") && (next === undefined || /\s/.test(next))) {
      const word = /([\p{L}.]+)$/u.exec(paragraph.slice(start, i))?.[1]?.toLowerCase() ?? ""
      if (c === "." && ABBREVIATIONS.has(word)) continue
      out.push(paragraph.slice(start, i + 1))
      start = i + 1
    }
  }
  out.push(paragraph.slice(start))
  return out.map((sentence) => sentence.trim()).filter((sentence) => sentence !== "")
}
