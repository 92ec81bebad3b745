/**
 * Managed regions (spec 08 R-PRJ-2): generated text lives between
 * `<!-- akm:generated:begin -->` and `<!-- akm:generated:end -->`; every byte
 * outside the markers is the author's and is kept as it is.
 */

export const BEGIN = "<!-- akm:generated:begin -->"
export const END = "<!-- akm:generated:end -->"

export interface Region {
  /** Text before the begin marker's line (frontmatter included). */
  readonly before: string
  /** Text between the marker lines. */
  readonly inner: string
  /** Text after the end marker's line. */
  readonly after: string
}

export type RegionRead =
  | { readonly _tag: "Region"; readonly region: Region }
  | { readonly _tag: "NoMarkers" }
  | { readonly _tag: "Broken"; readonly line: number; readonly message: string }

const lineOf = (text: string, offset: number): number => text.slice(0, offset).split("\n").length

const positions = (text: string, marker: string): ReadonlyArray<number> => {
  const out: Array<number> = []
  for (let at = text.indexOf(marker); at >= 0; at = text.indexOf(marker, at + marker.length)) out.push(at)
  return out
}

/** Finds the one managed region; a marker out of order, duplicated or alone is reported with its line. */
export const readRegion = (text: string): RegionRead => {
  const begins = positions(text, BEGIN)
  const ends = positions(text, END)
  if (begins.length === 0 && ends.length === 0) return { _tag: "NoMarkers" }
  if (begins.length > 1) return { _tag: "Broken", line: lineOf(text, begins[1]!), message: "a second akm:generated:begin marker; keep one managed region per file" }
  if (ends.length > 1) return { _tag: "Broken", line: lineOf(text, ends[1]!), message: "a second akm:generated:end marker; keep one managed region per file" }
  if (begins.length === 0) return { _tag: "Broken", line: lineOf(text, ends[0]!), message: "an akm:generated:end marker without a begin marker" }
  if (ends.length === 0) return { _tag: "Broken", line: lineOf(text, begins[0]!), message: "an akm:generated:begin marker without an end marker" }
  const begin = begins[0]!
  const end = ends[0]!
  if (end < begin) return { _tag: "Broken", line: lineOf(text, end), message: "the akm:generated:end marker comes before the begin marker" }
  const startLine = text.lastIndexOf("\n", begin - 1) + 1
  const afterBegin = text.indexOf("\n", begin)
  const innerStart = afterBegin < 0 ? text.length : afterBegin + 1
  const endLineStart = text.lastIndexOf("\n", end - 1) + 1
  const afterEnd = text.indexOf("\n", end)
  const tail = afterEnd < 0 ? text.length : afterEnd + 1
  if (innerStart > endLineStart) return { _tag: "Broken", line: lineOf(text, begin), message: "the begin and end markers share a line; put each on its own line" }
  return { _tag: "Region", region: { before: text.slice(0, startLine), inner: text.slice(innerStart, endLineStart), after: text.slice(tail) } }
}

/** The region rebuilt around new generated text; the text before and after stays byte-for-byte. */
export const withRegion = (region: Pick<Region, "before" | "after">, inner: string): string =>
  `${region.before}${BEGIN}\n${inner}${inner.endsWith("\n") || inner === "" ? "" : "\n"}${END}\n${region.after}`

/** `## Heading` sections of generated text, for naming the section that drifted (a preamble before the first heading is "(top)"). */
export const sectionsOf = (text: string): ReadonlyArray<{ readonly name: string; readonly text: string }> => {
  const out: Array<{ name: string; lines: Array<string> }> = [{ name: "(top)", lines: [] }]
  let fenced = false
  for (const line of text.split("\n")) {
    if (/^ {0,3}(```|~~~)/.test(line)) fenced = !fenced
    const heading = fenced ? null : /^##[ \t]+(.+?)[ \t#]*$/.exec(line)
    if (heading !== null) out.push({ name: heading[1]!.trim(), lines: [line] })
    else out[out.length - 1]!.lines.push(line)
  }
  return out.map((s) => ({ name: s.name, text: s.lines.join("\n") })).filter((s) => s.name !== "(top)" || s.text.trim() !== "")
}

/** The sections whose text differs between what a file holds and what would be generated (added and removed ones included). */
export const driftedSections = (actual: string, expected: string): ReadonlyArray<string> => {
  const a = sectionsOf(actual)
  const e = sectionsOf(expected)
  const names = [...new Set([...e.map((s) => s.name), ...a.map((s) => s.name)])]
  return names.filter((name) => a.find((s) => s.name === name)?.text.trimEnd() !== e.find((s) => s.name === name)?.text.trimEnd())
}
