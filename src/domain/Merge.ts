import { diff3Merge } from "node-diff3"

/**
 * Three-way text merge for `akm proposal refresh` (node-diff3): the base is
 * the bytes a proposal was made against, "ours" its reviewed after-bytes,
 * "theirs" the file as it is now. Line-based, so a merge never splits a line;
 * a conflict is written with git's markers (diff3 style, with the base) so
 * `proposal diff` shows exactly what needs a decision.
 */

export interface MergeLabels {
  readonly ours: string
  readonly base: string
  readonly theirs: string
}

export interface TextMerge {
  readonly text: string
  /** The number of conflicting regions (0 = a clean merge). */
  readonly conflicts: number
}

/** Lines with their terminators, so joining them gives back the exact text. */
const linesOf = (text: string): Array<string> => text.match(/[^\n]*\n|[^\n]+$/g) ?? []

/** A block of lines that always ends with a newline before the next marker. */
const block = (lines: ReadonlyArray<string>): string => {
  const text = lines.join("")
  return text === "" || text.endsWith("\n") ? text : `${text}\n`
}

export const CONFLICT_START = "<<<<<<<"
export const CONFLICT_BASE = "|||||||"
export const CONFLICT_SPLIT = "======="
export const CONFLICT_END = ">>>>>>>"

export const mergeText = (base: string, ours: string, theirs: string, labels: MergeLabels): TextMerge => {
  if (ours === theirs) return { text: ours, conflicts: 0 }
  if (base === theirs) return { text: ours, conflicts: 0 }
  if (base === ours) return { text: theirs, conflicts: 0 }
  const regions = diff3Merge(linesOf(ours), linesOf(base), linesOf(theirs), { excludeFalseConflicts: true })
  let text = ""
  let conflicts = 0
  for (const region of regions) {
    if (region.ok !== undefined) text += region.ok.join("")
    else if (region.conflict !== undefined) {
      conflicts++
      text = block([text])
      text += `${CONFLICT_START} ${labels.ours}\n${block(region.conflict.a)}${CONFLICT_BASE} ${labels.base}\n${block(region.conflict.o)}${CONFLICT_SPLIT}\n${block(region.conflict.b)}${CONFLICT_END} ${labels.theirs}\n`
    }
  }
  return { text, conflicts }
}

/** The 1-based lines where conflict markers start, for diagnostics. */
export const conflictLines = (text: string): ReadonlyArray<number> =>
  linesOf(text).flatMap((line, i) => (line.startsWith(`${CONFLICT_START} `) ? [i + 1] : []))
