/** One sighting of a recorded fact (R-LED-1). */
export type OccurrenceSource = "self-report" | "git" | "ci"

export const OCCURRENCE_SOURCES: ReadonlyArray<OccurrenceSource> = ["self-report", "git", "ci"]

export const isOccurrenceSource = (value: string): value is OccurrenceSource => (OCCURRENCE_SOURCES as ReadonlyArray<string>).includes(value)

export interface Occurrence {
  /** YYYY-MM-DD. */
  readonly date: string
  readonly source: OccurrenceSource
  readonly note?: string
}

export type FieldValue = string | ReadonlyArray<string>

/**
 * A ledger record (spec 08 §2): frontmatter (kind, id, title, fingerprint,
 * occurrences, sources) and one `## Field` section per field. Unknown
 * frontmatter keys (`meta`) and sections are kept, so a rewrite loses nothing.
 */
export interface LedgerRecord {
  readonly id: string
  readonly kind: string
  readonly title: string
  /** Field key → text (or list); in section order. */
  readonly fields: Readonly<Record<string, FieldValue>>
  readonly occurrences: ReadonlyArray<Occurrence>
  /** failure records: `<slug(error_class)>-<12 hex>` (R-LED-2). */
  readonly fingerprint?: string
  readonly sources?: ReadonlyArray<string>
  /** Discriminators recorded by `ledger split` (R-LED-3). */
  readonly discriminators?: ReadonlyArray<string>
  /** Other frontmatter keys, preserved as they were. */
  readonly meta?: Readonly<Record<string, unknown>>
  /** Text before the first field section, preserved. */
  readonly preamble?: string
  /** A section's heading as written, when it differs from `headingOf(key)`. */
  readonly headings?: Readonly<Record<string, string>>
}

/** Two sightings are one when date, source and note agree: the same sighting imported twice counts once. */
export const sameSighting = (a: Occurrence, b: Occurrence): boolean => a.date === b.date && a.source === b.source && (a.note ?? "") === (b.note ?? "")

/** Appends a sighting unless it is already there; never rewrites an earlier one. */
export const withOccurrence = (record: LedgerRecord, occurrence: Occurrence): { readonly record: LedgerRecord; readonly added: boolean } =>
  record.occurrences.some((o) => sameSighting(o, occurrence))
    ? { record, added: false }
    : {
      record: {
        ...record,
        occurrences: [...record.occurrences, occurrence],
        sources: [...new Set([...(record.sources ?? []), occurrence.source])]
      },
      added: true
    }

/** The field as one text (a list joined by line breaks); undefined when absent or empty. */
export const fieldText = (record: Pick<LedgerRecord, "fields">, key: string): string | undefined => {
  const value = record.fields[key]
  if (value === undefined) return undefined
  const text = typeof value === "string" ? value.trim() : value.join("\n").trim()
  return text === "" ? undefined : text
}

/** The distinct dates of the sightings, sorted. */
export const occurrenceDates = (record: Pick<LedgerRecord, "occurrences">): ReadonlyArray<string> => [...new Set(record.occurrences.map((o) => o.date))].sort()
