/**
 * A tool's result as JSON text, written once: the handler serialises a
 * program's result to redact it and parses it back for the structured
 * content; the text block prints the same JSON, so when the redactor changed
 * nothing that text is kept with the parsed value instead of serialising a
 * large result a second time per call (docs/decisions/0040-search-latency.md).
 */
const texts = new WeakMap<object, string>()

/** Remembers `json` as the serialisation of `value` (an object or array parsed from it). */
export const rememberJson = (value: unknown, json: string): void => {
  if (typeof value === "object" && value !== null) texts.set(value, json)
}

/** `value` as JSON: the remembered text, else JSON.stringify. */
export const jsonOf = (value: unknown): string => (typeof value === "object" && value !== null ? texts.get(value) : undefined) ?? JSON.stringify(value)
