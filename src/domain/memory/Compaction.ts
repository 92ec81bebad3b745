import { claimCoverage, extractClaims, type Claim } from "./Claims.js"
import type { ClaimDisposition } from "./Cleanup.js"
import type { MemoryRecord } from "./MemoryRecord.js"

/**
 * Compaction and formalisation (spec 06 §8.4): which memories belong
 * together, where two of them disagree, and — once a generator wrote the
 * consolidated item — which sources it fully states (R-MEM-3). Deterministic:
 * the generator only proposes text, the claim checker decides.
 */

/** Share of the smaller memory's content words the two must share to be grouped. */
const GROUP_OVERLAP = 0.5
/** And at least this many words, so two one-word memories are never a group. */
const GROUP_MIN_SHARED = 3
/** At most this many memories go to one generator call. */
const GROUP_MAX = 8
/** Word overlap above which two claims that differ in a number, date or negation speak of the same thing. */
const CONTRADICTION_OVERLAP = 0.6

const wordsOfRecord = (record: MemoryRecord): ReadonlySet<string> => new Set(extractClaims(record.body).flatMap((c) => c.words ?? []))

const overlap = (a: ReadonlySet<string>, b: ReadonlySet<string>): { readonly shared: number; readonly ratio: number } => {
  let shared = 0
  for (const w of a) if (b.has(w)) shared++
  const smaller = Math.min(a.size, b.size)
  return { shared, ratio: smaller === 0 ? 0 : shared / smaller }
}

const byAge = (a: MemoryRecord, b: MemoryRecord): number => (a.observedAt ?? "").localeCompare(b.observedAt ?? "") || a.path.localeCompare(b.path)

/**
 * Groups of related memories (near-duplicates, overlapping notes), oldest
 * first within a group: each memory joins the first group whose seed shares
 * enough of its content words. Records with a problem stay out.
 */
export const relatedGroups = (records: ReadonlyArray<MemoryRecord>): ReadonlyArray<ReadonlyArray<MemoryRecord>> => {
  const groups: Array<{ readonly seed: ReadonlySet<string>; readonly members: Array<MemoryRecord> }> = []
  for (const record of [...records].filter((r) => r.problems.length === 0).sort(byAge)) {
    const words = wordsOfRecord(record)
    if (words.size === 0) continue
    const home = groups.find((g) => {
      if (g.members.length >= GROUP_MAX) return false
      const o = overlap(words, g.seed)
      return o.shared >= GROUP_MIN_SHARED && o.ratio >= GROUP_OVERLAP
    })
    if (home === undefined) groups.push({ seed: words, members: [record] })
    else home.members.push(record)
  }
  return groups.filter((g) => g.members.length >= 2).map((g) => g.members)
}

/** Two claims of two memories that state different values of one thing: the older and the newer. */
export interface Contradiction {
  readonly older: { readonly ref: string; readonly claim: string; readonly observedAt?: string | undefined }
  readonly newer: { readonly ref: string; readonly claim: string; readonly observedAt?: string | undefined }
  /** The calendar day (YYYY-MM-DD) the newer value was observed: the "until" of the older one, the "since" of the newer. */
  readonly changedOn: string
}

const VALUE_LOSSES = new Set(["number", "unit", "date", "negation"])

const wordSet = (claim: Claim): ReadonlySet<string> => new Set(claim.words ?? [])

/**
 * Where memories of a group disagree (spec 06 §8.4): a claim of an older
 * memory and a claim of a newer one that share most of their words but not
 * their numbers, dates, units or negation. Never averaged: both are kept.
 */
export const contradictionsIn = (group: ReadonlyArray<MemoryRecord>): ReadonlyArray<Contradiction> => {
  const sorted = [...group].sort(byAge)
  const out: Array<Contradiction> = []
  const seen = new Set<string>()
  for (let i = 0; i < sorted.length; i++) {
    for (let j = i + 1; j < sorted.length; j++) {
      const older = sorted[i]!
      const newer = sorted[j]!
      const newerClaims = extractClaims(newer.body)
      for (const claim of extractClaims(older.body)) {
        for (const other of newerClaims) {
          if (claim.text === other.text) continue
          if (overlap(wordSet(claim), wordSet(other)).ratio < CONTRADICTION_OVERLAP) continue
          const [coverage] = claimCoverage(claim.text, [other.text], { window: 1 })
          if (coverage === undefined || coverage.covered || coverage.loss === undefined || !VALUE_LOSSES.has(coverage.loss.kind)) continue
          const key = `${claim.text}\0${other.text}`
          if (seen.has(key)) continue
          seen.add(key)
          out.push({
            older: { ref: older.ref, claim: claim.text, observedAt: older.observedAt },
            newer: { ref: newer.ref, claim: other.text, observedAt: newer.observedAt },
            changedOn: (newer.observedAt ?? "").slice(0, 10) || "an unknown date"
          })
        }
      }
    }
  }
  return out
}

const sentence = (claim: string): string => claim.replace(/[.;:\s]+$/, "")

/** The one line that keeps both values with temporal qualifiers: `until <date>: …; since <date>: …`. */
export const temporalLine = (c: Contradiction): string => `Until ${c.changedOn}: ${sentence(c.older.claim)}; since ${c.changedOn}: ${sentence(c.newer.claim)}.`

/**
 * The consolidated body with every contradiction kept: a contradiction whose
 * two values the generated text does not both state gets its temporal line
 * appended (a generator that picked one value never silently wins).
 */
export const keepContradictions = (body: string, contradictions: ReadonlyArray<Contradiction>): { readonly body: string; readonly added: ReadonlyArray<string> } => {
  const added: Array<string> = []
  for (const c of contradictions) {
    const both = claimCoverage(`${c.older.claim}\n\n${c.newer.claim}`, [body]).every((x) => x.covered)
    const qualified = new RegExp(`until ${c.changedOn.replace(/[.*+?^${}()|[\]\\]/g, "\\$&")}`, "i").test(body)
    if (!both || !qualified) added.push(temporalLine(c))
  }
  if (added.length === 0) return { body, added }
  const trimmed = body.replace(/\s+$/, "")
  return { body: `${trimmed}\n\n## Changed over time\n\n${added.map((l) => `- ${l}`).join("\n")}\n`, added }
}

/** What the claim checker says about one source against the consolidated item. */
export type SourceVerdict =
  | { readonly _tag: "Covered"; readonly record: MemoryRecord; readonly dispositions: ReadonlyArray<ClaimDisposition> }
  | { readonly _tag: "Kept"; readonly record: MemoryRecord; readonly uncovered: ReadonlyArray<{ readonly claim: string; readonly reason: string }> }

/**
 * R-MEM-3: a source may be retired only when every one of its claims is in
 * the consolidated item; a source with one claim missing stays live, and the
 * missing claims are named.
 */
export const judgeSources = (sources: ReadonlyArray<MemoryRecord>, consolidated: string, successorRef: string): ReadonlyArray<SourceVerdict> =>
  sources.map((record) => {
    const coverage = claimCoverage(record.body, [consolidated])
    const uncovered = coverage.filter((c) => !c.covered)
    if (coverage.length === 0 || uncovered.length > 0) {
      return { _tag: "Kept", record, uncovered: coverage.length === 0 ? [{ claim: "(no claims)", reason: "the memory states nothing the checker can read" }] : uncovered.map((c) => ({ claim: c.claim.text, reason: c.reason })) }
    }
    return { _tag: "Covered", record, dispositions: coverage.map((c) => ({ claim: c.claim.text, disposition: "in-successor", by: successorRef })) }
  })
