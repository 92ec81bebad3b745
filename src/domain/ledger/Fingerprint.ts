import { createHash } from "node:crypto"

/**
 * Failure fingerprints (R-LED-2): the same failure seen with other line
 * numbers, dates, paths, durations, addresses or ids lands on one
 * fingerprint; another error class or another module never does. Only
 * `error_class` and `operation` get placeholders: `module` is compared
 * trimmed, lowercased and with `/` separators, so two modules never collide.
 */

const PLACEHOLDERS: ReadonlyArray<readonly [RegExp, string]> = [
  // ISO dates and timestamps before numbers eat them.
  [/\b\d{4}-\d{2}-\d{2}(?:[t ]\d{2}:\d{2}(?::\d{2}(?:\.\d+)?)?(?:z|[+-]\d{2}:?\d{2})?)?/gi, "<date>"],
  [/\b\d{1,2}:\d{2}:\d{2}(?:\.\d+)?\b/gi, "<time>"],
  [/\b0x[0-9a-f]{4,}\b/gi, "<addr>"],
  // uuids and hex digests (git short shas and longer).
  [/\b[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}\b/gi, "<hash>"],
  [/\b(?=[0-9a-f]*\d)(?=[0-9a-f]*[a-f])[0-9a-f]{7,}\b/gi, "<hash>"],
  // Paths (with a line:column suffix): two or more segments, either separator, optional drive.
  [/(?:[a-z]:)?(?:[\w.@~+-]*[\\/])+[\w.@+-]+(?::\d+){0,2}/gi, "<path>"],
  // Line and column numbers.
  [/:\d+(?::\d+)?\b/gi, ":<n>"],
  [/\b(line|ln|col|column)\s*\d+/gi, "$1 <n>"],
  // Durations.
  [/\b\d+(?:\.\d+)?\s*(?:ns|µs|us|ms|s|sec|secs|seconds?|m|min|mins|minutes?|h|hrs?|hours?)\b/gi, "<duration>"],
  // Long numbers (ports, pids, counts): four digits or more.
  [/\b\d{4,}\b/gi, "<num>"]
]

/** Lowercased, placeholders in, whitespace collapsed. */
export const normalise = (text: string): string => {
  let out = text
  for (const [pattern, replacement] of PLACEHOLDERS) out = out.replace(pattern, replacement)
  return out.toLowerCase().replace(/\s+/g, " ").trim()
}

/** The error class without its noise (dates, durations, numbers …): what the fingerprint's slug is made from. */
const stripNoise = (text: string): string => {
  let out = text
  for (const [pattern] of PLACEHOLDERS) out = out.replace(pattern, " ")
  return out
}

/** A module as compared: trimmed, lowercased, `\` → `/`, no trailing slash. */
export const normaliseModule = (module: string): string => module.trim().toLowerCase().replace(/\\/g, "/").replace(/\/+$/, "")

/** `LockTimeout` / `lock timeout` → `lock-timeout` (at most 40 characters). */
export const slugOf = (text: string): string =>
  text
    .replace(/([a-z0-9])([A-Z])/g, "$1-$2")
    .replace(/([A-Z]+)([A-Z][a-z])/g, "$1-$2")
    .toLowerCase()
    .replace(/[^a-z0-9]+/g, "-")
    .replace(/^-+|-+$/g, "")
    .slice(0, 40)
    .replace(/-+$/, "") || "failure"

export interface FingerprintFields {
  readonly error_class: string
  readonly module: string
  readonly operation: string
}

/**
 * `<slug(error_class)>-<sha256(norm(error_class)|norm(module)|norm(operation))[:12]>`;
 * with a discriminator (R-LED-3) it joins the hashed text, so failures that
 * match it get a fingerprint of their own.
 */
export const fingerprint = (fields: FingerprintFields, discriminator?: string): string => {
  const parts = [normalise(fields.error_class), normaliseModule(fields.module), normalise(fields.operation)]
  if (discriminator !== undefined) parts.push(`split:${discriminator.trim().toLowerCase()}`)
  const digest = createHash("sha256").update(parts.join("|"), "utf8").digest("hex").slice(0, 12)
  return `${slugOf(stripNoise(fields.error_class))}-${digest}`
}

/** Whether a failure's text matches a split's discriminator: a case-insensitive substring of any field. */
export const matchesDiscriminator = (fields: Readonly<Record<string, string | ReadonlyArray<string>>>, discriminator: string): boolean => {
  const needle = discriminator.trim().toLowerCase()
  if (needle === "") return false
  return Object.values(fields).some((value) => (typeof value === "string" ? value : value.join("\n")).toLowerCase().includes(needle))
}
