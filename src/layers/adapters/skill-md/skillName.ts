/**
 * The `name` checks of the reference validator (skills-ref), in its order:
 * the name is trimmed and NFKC-normalised first, then length, lowercase,
 * hyphens at the ends, doubled hyphens, and characters. Like skills-ref, any
 * Unicode letter or digit counts (so `技能` and `мой-навык` are valid) as long
 * as lowercasing leaves it unchanged. Each failed check is one message, so a
 * name can fail several at once.
 */

/** Python's `len`: code points, not UTF-16 units (a surrogate pair counts once), counted without copying the text. */
export const codePointLength = (text: string): number => {
  let length = text.length
  for (let i = 0; i < text.length - 1; i++) {
    const unit = text.charCodeAt(i)
    if (unit >= 0xd800 && unit <= 0xdbff) {
      const next = text.charCodeAt(i + 1)
      if (next >= 0xdc00 && next <= 0xdfff) {
        length--
        i++
      }
    }
  }
  return length
}

export const normalizeSkillName = (name: string): string => name.trim().normalize("NFKC")

const LETTER_OR_DIGIT = /^[\p{L}\p{N}]$/u

export const skillNameProblems = (rawName: string, maxLength: number | undefined): ReadonlyArray<string> => {
  const name = normalizeSkillName(rawName)
  const problems: Array<string> = []
  const length = codePointLength(name)
  if (maxLength !== undefined && length > maxLength) problems.push(`name '${name}' is ${length} characters long; the limit is ${maxLength}`)
  if (name !== name.toLowerCase()) problems.push(`name '${name}' must be lowercase`)
  if (name.startsWith("-") || name.endsWith("-")) problems.push(`name '${name}' must not start or end with a hyphen`)
  if (name.includes("--")) problems.push(`name '${name}' must not contain consecutive hyphens`)
  if (![...name].every((c) => c === "-" || LETTER_OR_DIGIT.test(c))) problems.push(`name '${name}' may contain only letters, digits and hyphens`)
  return problems
}

/** A skill name from a free-form title: "PDF Forms & Fields" → "pdf-forms-fields". */
export const skillNameFromTitle = (title: string): string =>
  title.normalize("NFKC").toLowerCase().replace(/[^\p{L}\p{N}]+/gu, "-").replace(/^-+|-+$/g, "")
