import { parse as parseYaml } from "yaml"
import { sha256Hex } from "./Digest.js"

/**
 * Improve (spec 06): evidence → candidate → verification → proposal. This
 * file holds the pure parts: run and attempt records, the gate's
 * configuration and verdict, and the deterministic query sets of Level 2.
 */

export const IMPROVE_RECIPES = ["revise", "learn"] as const
export type ImproveRecipe = (typeof IMPROVE_RECIPES)[number]

/** Bumps when a recipe's prompt or target selection changes: part of the fingerprint (R-IMP-3). */
export const RECIPE_VERSION = "1"
/** Bumps when the gate's checks change: a new evaluator opens new attempts (R-IMP-3). */
export const EVALUATOR_VERSION = "improve-gate@1"

/**
 * What one attempt (one fingerprint) ended as. The settled ones are never
 * attempted again with the same inputs (R-IMP-3); a generation failure
 * (timeout, HTTP) is retried by the next run; an agent packet waits for
 * `akm proposal submit` (--force writes a fresh one).
 */
export const ATTEMPT_OUTCOMES = ["proposed", "auto-applied", "no-op", "gate-failed", "generation-failed", "packet", "refused"] as const
export type AttemptOutcome = (typeof ATTEMPT_OUTCOMES)[number]
export const SETTLED_OUTCOMES: ReadonlyArray<AttemptOutcome> = ["proposed", "auto-applied", "no-op", "gate-failed", "packet"]

export interface AttemptRecord {
  readonly runId: string
  readonly fingerprint: string
  readonly recipe: ImproveRecipe
  readonly target: string
  readonly outcome: AttemptOutcome
  readonly reason?: string | undefined
  readonly proposalId?: string | undefined
  readonly at: string
}

/** One target a run looked at, and what became of it. */
export interface RunTarget {
  readonly recipe: ImproveRecipe
  /** The item's ref (revise) or the bundle a new item goes to (learn: "bundle:<name>"). */
  readonly target: string
  readonly evidence: ReadonlyArray<string>
  readonly fingerprint?: string | undefined
  readonly outcome: AttemptOutcome | "skipped" | "planned"
  /** Why it was skipped, refused or failed; what a dry run would do. */
  readonly reason?: string | undefined
  readonly proposalId?: string | undefined
  readonly packetId?: string | undefined
}

/** A run record (R-IMP-7). */
export interface RunRecord {
  readonly id: string
  readonly startedAt: string
  readonly finishedAt: string
  readonly durationMs: number
  readonly dryRun: boolean
  readonly options: Readonly<Record<string, unknown>>
  readonly generator: string
  readonly targets: ReadonlyArray<RunTarget>
  readonly modelCalls: number
  readonly cachedCalls: number
  readonly inputTokens: number
  readonly outputTokens: number
  readonly proposals: ReadonlyArray<string>
  readonly autoApplied: ReadonlyArray<string>
  /** "ok"; "nothing-to-do"; "budget" when --budget-ms stopped it early. */
  readonly status: "ok" | "nothing-to-do" | "budget"
}

// --- the gate (spec 06 §6 Level 2) -------------------------------------------------------------

/** `improve.gate` in config.yaml. */
export interface GateConfig {
  /** How much a trigger query's MRR may drop (0: every trigger improves or holds). */
  readonly triggerTolerance: number
  /** How much the mean holdout MRR may drop. */
  readonly holdoutMaxDrop: number
  /** How many places a canary may lose (0: none gets worse). */
  readonly canaryMaxRankLoss: number
  /** How many other items serve as canaries. */
  readonly canaries: number
  /** Results per sandbox query (a rank past it counts as not found). */
  readonly depth: number
  /** Largest candidate file, in bytes (Level 1 size bound). */
  readonly maxFileBytes: number
}

export const DEFAULT_GATE: GateConfig = { triggerTolerance: 0, holdoutMaxDrop: 0.02, canaryMaxRankLoss: 0, canaries: 8, depth: 20, maxFileBytes: 256 * 1024 }

/** `improve.gate` from the config's improve section, or what is wrong with it (named by key). */
export const gateConfig = (improve: Readonly<Record<string, unknown>> | undefined): GateConfig | { readonly reason: string } => {
  const section = improve?.["gate"]
  if (section === undefined) return DEFAULT_GATE
  if (typeof section !== "object" || section === null || Array.isArray(section)) return { reason: "improve.gate must be a mapping" }
  const given = section as Readonly<Record<string, unknown>>
  const out: Record<string, number> = { ...DEFAULT_GATE }
  for (const [key, value] of Object.entries(given)) {
    if (!(key in DEFAULT_GATE)) return { reason: `improve.gate.${key} is not a gate setting; known: ${Object.keys(DEFAULT_GATE).join(", ")}` }
    if (typeof value !== "number" || !Number.isFinite(value) || value < 0) return { reason: `improve.gate.${key} must be a number ≥ 0` }
    out[key] = value
  }
  return out as unknown as GateConfig
}

export type QueryKind = "trigger" | "holdout" | "canary" | "banned"

/** One sandbox query: the ref it should find and its 1-based rank before and after the candidate (0 = not found). */
export interface QueryCheck {
  readonly kind: QueryKind
  readonly query: string
  readonly expected: string
  readonly before: number
  readonly after: number
  /** banned: the deprecated item that must not rank above `expected` (its successor). */
  readonly banned?: string | undefined
  readonly bannedBefore?: number | undefined
  readonly bannedAfter?: number | undefined
}

export const reciprocal = (rank: number): number => (rank <= 0 ? 0 : 1 / rank)

const mean = (values: ReadonlyArray<number>): number => (values.length === 0 ? 0 : values.reduce((a, b) => a + b, 0) / values.length)

/** A rank in a list of `depth`: not found counts as one past the end, so "dropped out" is a loss. */
const place = (rank: number, depth: number): number => (rank <= 0 ? depth + 1 : rank)

const leapfrogs = (c: QueryCheck, which: "before" | "after"): boolean => {
  const own = which === "before" ? c.before : c.after
  const banned = which === "before" ? c.bannedBefore : c.bannedAfter
  return banned !== undefined && banned > 0 && (own === 0 || banned < own)
}

export interface GateVerdict {
  readonly pass: boolean
  /** Why it failed, one line per broken rule (empty on pass). */
  readonly failures: ReadonlyArray<string>
  readonly metrics: Readonly<Record<string, number>>
}

/**
 * Pass = every trigger's MRR improves or holds (within `triggerTolerance`),
 * the mean holdout MRR drops by at most `holdoutMaxDrop`, no canary's rank
 * gets worse by more than `canaryMaxRankLoss`, and no banned item newly
 * ranks above its successor; with `mustFind` (a new item) every trigger must
 * find it. A candidate without trigger queries cannot show
 * it fixes anything retrieval-wise; it passes on the other rules (its
 * evidence was a lint finding or a broken link, which Level 1 checks).
 */
export const judge = (checks: ReadonlyArray<QueryCheck>, gate: GateConfig, options: { readonly mustFind?: boolean } = {}): GateVerdict => {
  const of = (kind: QueryKind) => checks.filter((c) => c.kind === kind)
  const triggers = of("trigger")
  const holdouts = of("holdout")
  const canaries = of("canary")
  const banned = of("banned")
  const failures: Array<string> = []
  for (const t of triggers) {
    // A new item (learn) that its own question does not find answers nothing.
    if (options.mustFind === true && t.after === 0) {
      failures.push(`trigger "${t.query}": the new item ${t.expected} is not found`)
      continue
    }
    if (reciprocal(t.after) < reciprocal(t.before) - gate.triggerTolerance - 1e-9) {
      failures.push(`trigger "${t.query}": ${t.expected} fell from rank ${t.before} to ${t.after === 0 ? "not found" : t.after}`)
    }
  }
  const holdoutBefore = mean(holdouts.map((h) => reciprocal(h.before)))
  const holdoutAfter = mean(holdouts.map((h) => reciprocal(h.after)))
  if (holdoutBefore - holdoutAfter > gate.holdoutMaxDrop + 1e-9) {
    failures.push(`holdout queries: mean MRR fell from ${holdoutBefore.toFixed(3)} to ${holdoutAfter.toFixed(3)} (allowed drop ${gate.holdoutMaxDrop})`)
  }
  let canaryWorse = 0
  for (const c of canaries) {
    if (place(c.after, gate.depth) - place(c.before, gate.depth) > gate.canaryMaxRankLoss) {
      canaryWorse++
      failures.push(`canary "${c.query}": ${c.expected} fell from rank ${c.before || "not found"} to ${c.after || "not found"}`)
    }
  }
  let leapfrog = 0
  for (const b of banned) {
    if (leapfrogs(b, "after") && !leapfrogs(b, "before")) {
      leapfrog++
      failures.push(`banned: ${b.banned} now ranks above its successor ${b.expected} for "${b.query}"`)
    }
  }
  const metrics: Record<string, number> = {
    "l2.triggers": triggers.length,
    "l2.trigger.mrr.before": mean(triggers.map((t) => reciprocal(t.before))),
    "l2.trigger.mrr.after": mean(triggers.map((t) => reciprocal(t.after))),
    "l2.holdouts": holdouts.length,
    "l2.holdout.mrr.before": holdoutBefore,
    "l2.holdout.mrr.after": holdoutAfter,
    "l2.canaries": canaries.length,
    "l2.canary.worse": canaryWorse,
    "l2.banned": banned.length,
    "l2.banned.leapfrog": leapfrog
  }
  return { pass: failures.length === 0, failures, metrics }
}

// --- query sets ---------------------------------------------------------------------------------

const clean = (text: string): string => text.replace(/\s+/g, " ").trim()

/** At most this many words per derived query: a whole description is not a search. */
const QUERY_WORDS = 8

/** How many past search queries that returned a target become its holdouts. */
export const PAST_QUERIES = 5

const words = (text: string, n = QUERY_WORDS): string => clean(text).split(" ").slice(0, n).join(" ")

/**
 * Holdout queries: deterministic from the target as it was (its name, its
 * description, its headings) and from past searches that returned it — what
 * already finds the item must keep finding it.
 */
export const holdoutQueries = (target: { readonly name: string; readonly description?: string | undefined; readonly headings: ReadonlyArray<string> }, past: ReadonlyArray<string>, max = 8): ReadonlyArray<string> => {
  const out: Array<string> = []
  const add = (q: string) => {
    const w = words(q)
    // One word ("Notes") is no query to hold an item to: a vague field is often what the evidence is about.
    if (w.split(" ").length >= 2 && !out.includes(w.toLowerCase())) out.push(w.toLowerCase())
  }
  // Past searches keep up to half the places: the target's own fields alone would fill them on a long page.
  const fromPast = Math.min(past.length, Math.floor(max / 2))
  add(target.name.replace(/[-_/]+/g, " "))
  if (target.description !== undefined) add(target.description)
  for (const h of target.headings) add(h)
  out.splice(max - fromPast)
  for (const q of past) if (out.length < max) add(q)
  return out.slice(0, max)
}

/** A fixed sample of other items by a hash of their ref (deterministic, not the first n alphabetically). */
export const canarySample = (refs: ReadonlyArray<string>, exclude: ReadonlySet<string>, n: number): ReadonlyArray<string> =>
  refs
    .filter((r) => !exclude.has(r))
    .map((ref) => ({ ref, key: sha256Hex(`canary/1/${ref}`) }))
    .sort((a, b) => (a.key < b.key ? -1 : a.key > b.key ? 1 : 0))
    .slice(0, n)
    .map((x) => x.ref)

/** A canary's self-retrieval query: its name and a few words of its description. */
export const canaryQuery = (item: { readonly name: string; readonly description?: string | undefined }): string =>
  words(`${item.name.replace(/[-_/]+/g, " ")} ${item.description ?? ""}`, 6).toLowerCase()

// --- Level 1: frontmatter fields -----------------------------------------------------------------

/** Frontmatter keys a revise may change; every other key must keep its value (Level 1). */
export const REVISABLE_FIELDS: ReadonlyArray<string> = ["description", "tags", "aliases", "searchHints", "hints", "when-to-use", "whenToUse", "updated", "examples"]

const FRONTMATTER = /^---[ \t]*\r?\n([\s\S]*?)\r?\n---[ \t]*(?:\r?\n|$)/

/** The parsed frontmatter mapping of a text, {} without one, undefined when it is not valid YAML. */
export const frontmatterOf = (text: string): Readonly<Record<string, unknown>> | undefined => {
  const match = FRONTMATTER.exec(text.replace(/^\uFEFF/, ""))
  if (match === null) return {}
  try {
    const data: unknown = parseYaml(match[1]!)
    if (data === null || data === undefined) return {}
    return typeof data === "object" && !Array.isArray(data) ? (data as Record<string, unknown>) : undefined
  } catch {
    return undefined
  }
}

/** Keys outside `allowed` whose value the candidate changed, added or dropped. */
export const protectedFieldChanges = (before: string, after: string, allowed: ReadonlyArray<string> = REVISABLE_FIELDS): ReadonlyArray<string> | "invalid" => {
  const a = frontmatterOf(before) ?? {}
  const b = frontmatterOf(after)
  if (b === undefined) return "invalid"
  const keys = [...new Set([...Object.keys(a), ...Object.keys(b)])].filter((k) => !allowed.includes(k))
  return keys.filter((k) => JSON.stringify(a[k]) !== JSON.stringify(b[k])).sort()
}

/** The markdown headings of a text (ATX), for holdout queries. */
export const headingsOf = (text: string): ReadonlyArray<string> =>
  [...text.matchAll(/^#{1,4}[ \t]+(.+?)[ \t#]*$/gm)].map((m) => m[1]!).slice(0, 12)

// --- Level 1: content kept ----------------------------------------------------------------------

const contentWords = (text: string): ReadonlySet<string> =>
  new Set(text.replace(FRONTMATTER, "").toLowerCase().match(/[\p{L}\p{N}]{3,}/gu) ?? [])

/** Share of a revision's distinct body words the candidate may lose before it counts as dropping facts. */
export const MAX_WORD_LOSS = 0.25

/**
 * What a revision drops of the item's own text: headings that vanished and
 * the share of distinct body words lost. A fix adds or corrects; it does not
 * delete sections (that would be a destructive change, never from improve).
 */
export const droppedContent = (before: string, after: string): { readonly headings: ReadonlyArray<string>; readonly wordLoss: number } => {
  const kept = new Set(headingsOf(after).map((h) => h.toLowerCase()))
  const headings = headingsOf(before).filter((h) => !kept.has(h.toLowerCase()))
  const a = contentWords(before)
  const b = contentWords(after)
  const lost = [...a].filter((w) => !b.has(w)).length
  return { headings, wordLoss: a.size === 0 ? 0 : lost / a.size }
}

/** Share of a question's words a new item's body contains (learn: the item must answer what was asked). */
export const answerCoverage = (question: string, text: string): number => {
  const q = [...contentWords(question)]
  const body = contentWords(text)
  return q.length === 0 ? 1 : q.filter((w) => body.has(w)).length / q.length
}
