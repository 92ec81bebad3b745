/**
 * OKF v0.2 provenance, trust and lifecycle (OKF §5): read leniently into the
 * projection, with a problem for each entry that breaks the spec's shape. No
 * problem ever drops the concept (§11: consumers MUST NOT reject it).
 */

export type TrustTier = "unverified" | "machine-confirmed" | "human-reviewed"

export interface Provenance {
  /** `status`, defaulting to `stable` (§5.4). */
  readonly status: string
  readonly staleAfter: string | undefined
  /** The content's last meaningful change: `updated`, else `generated.at`, else the v0.1 `timestamp` (§13.1). */
  readonly updated: string | undefined
  readonly trust: TrustTier
  /** The families as written (a bare `verified` mapping becomes a one-element list), for `extra`. */
  readonly fields: Readonly<Record<string, unknown>>
  /** Source titles, for search hints. */
  readonly sourceTitles: ReadonlyArray<string>
  readonly problems: ReadonlyArray<{ readonly message: string; readonly line: number | undefined }>
}

const STATUSES = new Set(["draft", "stable", "deprecated"])

/** ISO 8601 datetime with an explicit UTC offset, as every OKF timestamp must be (§5). */
const DATETIME = /^\d{4}-\d{2}-\d{2}[Tt ]\d{2}:\d{2}(?::\d{2}(?:\.\d+)?)?(?:[Zz]|[+-]\d{2}:?\d{2})$/

export const isOkfDatetime = (value: unknown): value is string => typeof value === "string" && DATETIME.test(value) && !Number.isNaN(Date.parse(value))

const isRecord = (value: unknown): value is Record<string, unknown> => value !== null && typeof value === "object" && !Array.isArray(value)

const text = (value: unknown): string | undefined =>
  typeof value === "string" ? (value.trim() === "" ? undefined : value.trim()) : typeof value === "number" ? String(value) : undefined

export const readProvenance = (data: Readonly<Record<string, unknown>>, keyLines: Readonly<Record<string, number>>): Provenance => {
  const problems: Array<{ message: string; line: number | undefined }> = []
  const problem = (key: string, message: string) => problems.push({ message, line: keyLines[key] })
  const fields: Record<string, unknown> = {}

  const sourceTitles: Array<string> = []
  if (data.sources !== undefined && data.sources !== null) {
    const sources = Array.isArray(data.sources) ? data.sources : [data.sources]
    if (!Array.isArray(data.sources)) problem("sources", "`sources` should be a list of entries")
    sources.forEach((source, i) => {
      if (!isRecord(source)) return problem("sources", `sources[${i}] is not a mapping with a \`resource\``)
      if (text(source.resource) === undefined) problem("sources", `sources[${i}] has no \`resource\` (required in every entry)`)
      if (source.last_modified !== undefined && !isOkfDatetime(source.last_modified)) problem("sources", `sources[${i}].last_modified is not an ISO 8601 datetime with an offset`)
      const title = text(source.title)
      if (title !== undefined) sourceTitles.push(title)
    })
    fields.sources = sources
  }
  if (data.usage_window !== undefined) fields.usageWindow = data.usage_window

  let generatedAt: string | undefined
  if (data.generated !== undefined && data.generated !== null) {
    const generated = data.generated
    if (!isRecord(generated)) {
      problem("generated", "`generated` should be a mapping `{ by, at }`")
    } else {
      if (text(generated.by) === undefined) problem("generated", "`generated.by` is required (an actor such as `human:<id>` or `<producer>/<version>`)")
      if (generated.at !== undefined && !isOkfDatetime(generated.at)) problem("generated", "`generated.at` is not an ISO 8601 datetime with an offset")
      else if (typeof generated.at === "string") generatedAt = generated.at
    }
    fields.generated = generated
  }

  const verifiedBy: Array<string> = []
  if (data.verified !== undefined && data.verified !== null) {
    // A bare mapping is a one-element list (§5.2, §11: MUST).
    const events = Array.isArray(data.verified) ? data.verified : [data.verified]
    events.forEach((event, i) => {
      if (!isRecord(event)) return problem("verified", `verified[${i}] should be a mapping \`{ by, at }\``)
      const by = text(event.by)
      if (by === undefined) problem("verified", `verified[${i}] has no \`by\``)
      else verifiedBy.push(by)
      if (!isOkfDatetime(event.at)) problem("verified", `verified[${i}].at is missing or not an ISO 8601 datetime with an offset`)
    })
    fields.verified = events
  }
  const trust: TrustTier = verifiedBy.length === 0 ? "unverified" : verifiedBy.some((by) => by.startsWith("human:")) ? "human-reviewed" : "machine-confirmed"
  fields.trust = trust

  let status = "stable"
  if (data.status !== undefined && data.status !== null) {
    const written = text(data.status)
    if (written === undefined || !STATUSES.has(written)) problem("status", `\`status\` is ${JSON.stringify(data.status)}; expected draft, stable or deprecated`)
    if (written !== undefined) status = written
  }

  let staleAfter: string | undefined
  if (data.stale_after !== undefined && data.stale_after !== null) {
    if (!isOkfDatetime(data.stale_after)) problem("stale_after", "`stale_after` is not an ISO 8601 datetime with an offset")
    staleAfter = text(data.stale_after)
  }

  const updated = text(data.updated) ?? generatedAt ?? text(data.timestamp)
  return { status, staleAfter, updated, trust, fields, sourceTitles, problems }
}
