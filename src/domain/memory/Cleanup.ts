import { claimCoverage, extractClaims } from "./Claims.js"
import { normalisedContent, type MemoryProblem, type MemoryRecord } from "./MemoryRecord.js"

/**
 * Which memories may leave the active tier, and why (spec 06 §8.2 step 2,
 * §8.4; seed 002 §13.38). Deterministic cleanup needs no model: exact or
 * normalised duplicates, expired items, explicit supersession with a valid
 * successor, invalid generated derivatives. Semantic retirement (a source
 * whose every claim another retained memory states) runs only when asked.
 */

export type RetireReason = "duplicate" | "expired" | "superseded" | "invalid-derivative" | "covered" | "compacted" | "formalized"

/** What became of one claim of a retired source (R-MEM-3). */
export interface ClaimDisposition {
  readonly claim: string
  readonly disposition: "in-successor" | "in-other-retained-source" | "superseded" | "discarded"
  /** The ref that states it, or the rule that discarded it. */
  readonly by: string
}

export interface Retirement {
  readonly record: MemoryRecord
  readonly reason: RetireReason
  /** Lifecycle state it enters: quarantined for an invalid derivative, else retired. */
  readonly state: "retired" | "quarantined"
  readonly successors: ReadonlyArray<string>
  readonly dispositions: ReadonlyArray<ClaimDisposition>
}

export interface CleanupPlan {
  readonly retire: ReadonlyArray<Retirement>
  /** Records left alone because something about them is wrong: each says what and where. */
  readonly problems: ReadonlyArray<{ readonly ref: string; readonly path: string; readonly problem: MemoryProblem }>
}

export interface CleanupInput {
  readonly records: ReadonlyArray<MemoryRecord>
  readonly nowMs: number
  /** Refs of every indexed item outside the memory tier that a successor or derivation may name. */
  readonly otherRefs?: ReadonlySet<string> | undefined
}

const claimsOf = (record: MemoryRecord) => extractClaims(record.body).map((c) => c.text)

const byAge = (a: MemoryRecord, b: MemoryRecord): number =>
  (a.observedAt ?? "").localeCompare(b.observedAt ?? "") || a.path.localeCompare(b.path)

/** Each record's direct successor: its own `supersededBy`, else the newest memory that says it `supersedes` it. */
const successorMap = (records: ReadonlyArray<MemoryRecord>): Map<string, string> => {
  const next = new Map<string, string>()
  for (const r of [...records].sort(byAge)) for (const old of r.supersedes ?? []) if (old !== r.ref) next.set(old, r.ref)
  for (const r of records) if (r.supersededBy !== undefined && r.supersededBy !== r.ref) next.set(r.ref, r.supersededBy)
  return next
}

/**
 * Deterministic cleanup: every eligible record, in a stable order. Nothing is
 * retired whose metadata cannot be read: a broken frontmatter or an unknown
 * expires is a problem to fix, never a reason to drop the memory.
 */
export const deterministicCleanup = (input: CleanupInput): CleanupPlan => {
  const { records, nowMs } = input
  const byRef = new Map(records.map((r) => [r.ref, r]))
  const exists = (ref: string) => byRef.has(ref) || (input.otherRefs?.has(ref) ?? false)
  const problems: Array<CleanupPlan["problems"][number]> = []
  for (const r of records) for (const problem of r.problems) problems.push({ ref: r.ref, path: r.path, problem })
  const retired = new Map<string, Retirement>()
  const broken = (r: MemoryRecord) => r.problems.some((p) => p.code === "broken-frontmatter")

  // Supersession: follow the chain to its current end; a cycle or a missing end retires nothing.
  const next = successorMap(records)
  for (const r of records) {
    if (!next.has(r.ref) || broken(r)) continue
    const seen = new Set([r.ref])
    let at = next.get(r.ref)!
    let problem: MemoryProblem | undefined
    while (next.has(at) && byRef.has(at)) {
      if (seen.has(at)) {
        problem = { code: "supersession-cycle", message: `supersession cycle: ${[...seen, at].join(" → ")}; remove supersedes/supersededBy from one of them` }
        break
      }
      seen.add(at)
      at = next.get(at)!
    }
    if (problem === undefined && !exists(at)) problem = { code: "unknown-successor", message: `its successor ${at} does not exist; point supersededBy at an existing item` }
    if (problem !== undefined) {
      problems.push({ ref: r.ref, path: r.path, problem })
      continue
    }
    retired.set(r.ref, {
      record: r,
      reason: "superseded",
      state: "retired",
      successors: [at],
      dispositions: claimsOf(r).map((claim) => ({ claim, disposition: "superseded", by: at }))
    })
  }

  for (const r of records) {
    if (retired.has(r.ref) || broken(r) || r.expires === undefined || Date.parse(r.expires) > nowMs) continue
    retired.set(r.ref, { record: r, reason: "expired", state: "retired", successors: [], dispositions: claimsOf(r).map((claim) => ({ claim, disposition: "discarded", by: "expired" })) })
  }

  for (const r of records) {
    if (retired.has(r.ref) || r.derivedFrom === undefined || exists(r.derivedFrom)) continue
    retired.set(r.ref, {
      record: r,
      reason: "invalid-derivative",
      state: "quarantined",
      successors: [],
      dispositions: claimsOf(r).map((claim) => ({ claim, disposition: "discarded", by: `derived from ${r.derivedFrom}, which no longer exists` }))
    })
  }

  // Duplicates among what is left: the oldest copy stays, the others name it as successor.
  const groups = new Map<string, Array<MemoryRecord>>()
  for (const r of records) {
    if (retired.has(r.ref) || broken(r)) continue
    const key = normalisedContent(r.body)
    if (key === "") continue
    const group = groups.get(key)
    if (group === undefined) groups.set(key, [r])
    else group.push(r)
  }
  for (const group of groups.values()) {
    if (group.length < 2) continue
    const [kept, ...copies] = [...group].sort(byAge)
    for (const copy of copies) {
      retired.set(copy.ref, { record: copy, reason: "duplicate", state: "retired", successors: [kept!.ref], dispositions: claimsOf(copy).map((claim) => ({ claim, disposition: "in-successor", by: kept!.ref })) })
    }
  }
  return { retire: records.filter((r) => retired.has(r.ref)).map((r) => retired.get(r.ref)!), problems }
}

/**
 * Semantic retire-only (spec 06 §8.4, R-MEM-3): oldest first, a memory whose
 * every claim a retained memory states is retired, until `target` items
 * remain. Coverage is checked against retained memories only, so two
 * memories can never retire each other.
 */
export const coverageRetirement = (records: ReadonlyArray<MemoryRecord>, target: number): ReadonlyArray<Retirement> => {
  const active = new Map(records.map((r) => [r.ref, r]))
  const index = new WordIndex(records)
  const out: Array<Retirement> = []
  for (const r of [...records].sort(byAge)) {
    if (active.size <= target) break
    if (r.problems.length > 0) continue
    // Only memories that share a claim's rarest words can cover it: a narrowing that can only
    // make coverage rarer (the safe direction), never create it.
    const others = index.candidates(r, active).filter((o) => o.ref !== r.ref)
    if (others.length === 0) continue
    const coverage = claimCoverage(r.body, others.map((o) => o.body))
    // An undispositioned claim blocks retirement (R-MEM-3).
    if (coverage.length === 0 || coverage.some((c) => !c.covered || c.coveredBy === undefined)) continue
    const dispositions = coverage.map((c): ClaimDisposition => ({ claim: c.claim.text, disposition: "in-other-retained-source", by: others[c.coveredBy!]!.ref }))
    out.push({ record: r, reason: "covered", state: "retired", successors: [...new Set(dispositions.map((d) => d.by))], dispositions })
    active.delete(r.ref)
  }
  return out
}

const wordsOf = (text: string): ReadonlyArray<string> => [...new Set(text.toLowerCase().match(/[\p{L}\p{N}]+/gu) ?? [])].map((w) => w.replace(/(?:ing|ed|es|s)$/, ""))

/** Which memories hold a word, so a claim's possible covers are found without comparing every pair. */
class WordIndex {
  private readonly postings = new Map<string, Set<string>>()
  constructor(records: ReadonlyArray<MemoryRecord>) {
    for (const r of records) {
      for (const w of wordsOf(r.body)) {
        const set = this.postings.get(w)
        if (set === undefined) this.postings.set(w, new Set([r.ref]))
        else set.add(r.ref)
      }
    }
  }
  /** The active memories holding one of the two rarest words of each claim of `record`. */
  candidates(record: MemoryRecord, active: ReadonlyMap<string, MemoryRecord>): ReadonlyArray<MemoryRecord> {
    const refs = new Set<string>()
    for (const claim of extractClaims(record.body)) {
      const rare = [...wordsOf(claim.text)].sort((a, b) => (this.postings.get(a)?.size ?? 0) - (this.postings.get(b)?.size ?? 0)).slice(0, 2)
      for (const w of rare) for (const ref of this.postings.get(w) ?? []) refs.add(ref)
    }
    return [...refs].flatMap((ref) => active.get(ref) ?? [])
  }
}

/** Every claim has a disposition: a retirement without one must not happen. */
export const fullyDisposed = (retirement: Retirement): boolean => retirement.dispositions.length >= extractClaims(retirement.record.body).length
