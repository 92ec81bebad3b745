/**
 * Tags are shown as their authors wrote them (`headline-metric`) and matched
 * in a normal form: NFC, lowercase, runs of `-`, `_` and spaces as one space
 * (`Headline_Metric` and `headline metric` are the same tag).
 */
export const normalizeTag = (tag: string): string => tag.normalize("NFC").toLowerCase().replace(/[-_\s]+/g, " ").trim()

/**
 * Written tags without blanks and without repeats by normal form (the first
 * spelling stays), ordered by normal form. A run of whitespace becomes one
 * space: a tag is one line (the index stores lists one per line).
 */
export const uniqueTags = (tags: ReadonlyArray<string>): ReadonlyArray<string> => {
  const byKey = new Map<string, string>()
  for (const tag of tags) {
    const written = tag.normalize("NFC").replace(/\s+/g, " ").trim()
    const key = normalizeTag(written)
    if (key !== "" && !byKey.has(key)) byKey.set(key, written)
  }
  return [...byKey.entries()].sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0)).map(([, written]) => written)
}
