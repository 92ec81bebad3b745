/**
 * How search ranks (spec 04 §3 step 4): the ONE table of ranking constants and
 * the arithmetic over them. Pure; the search program measures the features,
 * this file turns them into a score. Every constant says which benchmark case
 * motivates it: `curate-golden/<query id>` and `ranking-baseline/<assertion
 * id>` in ../shared/bench, `nl/<case>` in test/fixtures/search-quality (the
 * natural-language set: partial word overlap, decoys sharing a name,
 * superseded twins). docs/search.md explains the table for users.
 */

import { decayed, UTILITY_PRIOR } from "./Utility.js"

export const RANKING = {
  /**
   * Base score = RELEVANCE · (bm25 / best bm25 among the candidates) +
   * COVERAGE · (IDF-weighted share of the query's words the item contains).
   * bm25 alone lets one word in a name outrank an item that answers the whole
   * question (nl/leaked-password against the `rotate-logs` and
   * `password-policy` decoys; curate-golden/code-review "review my code for
   * bugs and quality"). With a single word the coverage is that of every
   * candidate, so the score follows relevance (MatchFeatures.measure).
   */
  relevance: 0.55,
  coverage: 0.45,

  /** Whole query equals the item's name: ranking-baseline a06/a08–a11, o05 (an exact name scores 1.0 and ranks first). */
  exactName: 0.5,
  /** Whole query equals an alias or a tag: ranking-baseline a12 (`kube` → k8s-deploy via aliases). */
  exactAlias: 0.3,
  /**
   * Times the share of the query's words found in the name: a skill named
   * `svelte-components` above its own reference pages for "svelte component"
   * (ranking-baseline a04/a05), `docker-homelab` for "docker homelab" (a01).
   */
  nameCoverage: 0.15,
  /** Times the share of the query's words that equal a tag: ranking-baseline a25 ("homelab" is a tag of docker-homelab). */
  tagMatch: 0.06,
  /**
   * Actionable types (skill, command, workflow, agent) get a small prior over
   * reference text: ranking-baseline o01–o03 ("code review", "deploy",
   * "review" rank a skill/command/agent above knowledge docs).
   */
  actionableType: 0.05,
  actionableTypes: ["skill", "command", "workflow", "agent"] as ReadonlyArray<string>,
  /** `quality: curated` frontmatter: ranking-baseline a22 ("kubernetes deploy" reports the curated boost). */
  curated: 0.03,

  /**
   * Utility learned from usage and feedback (spec 04 §6, domain/Utility.ts),
   * in [0, 1] with 0.5 neutral, decayed toward 0.5 for the time since it was
   * learned, multiplies the score by at most 1 ± UTILITY_RANGE: a well-used
   * item moves up among near ties, never past a clearly better match
   * (test/programs/search.test.ts "utility reorders near ties only").
   */
  utilityRange: 0.1,

  /**
   * Replaced knowledge (belief superseded/contradicted/archived, or a
   * `supersededBy`) keeps at most HISTORICAL_FACTOR of its score and never
   * more than HISTORICAL_CEILING: under `--belief all`, or when the successor
   * is not in the index, the current item still ranks first even when the old
   * text matches the query better (nl/prod-down and nl/ci-api-keys, the
   * superseded twins; test/programs/search.test.ts "current belief hides a
   * superseded twin").
   */
  historicalFactor: 0.5,
  historicalCeiling: 0.45,
  /**
   * Deprecated items (belief `deprecated`, OKF `status: deprecated`) rank
   * below current ones on the same words but are still found when asked for
   * (nl/slow-pipeline: the deprecated Jenkins page is a decoy; nl/jenkins-syntax:
   * it is the answer).
   */
  deprecatedFactor: 0.6,
  deprecatedCeiling: 0.6,
  /**
   * Past `staleAfter`/`expires`, or OKF `status: stale`: still found, a little
   * lower than a current twin (test/programs/search.test.ts "an expired item
   * ranks below its current twin").
   */
  staleFactor: 0.85,

  /**
   * Keyword stuffing (issue 25): the words index keeps at most FIELD_TERM_CAP
   * occurrences of a word per field (domain/TextSignals.ts saturateField), so
   * a field that repeats the question's words gains no term frequency and no
   * length from the repeats: nl/stuffed-* (twins that repeat a question's
   * words fourteen times: `knowledge/kubernetes-deploy-undo-tips` against
   * `skills/kubernetes-rollback`), and a copy of a page padded with its own
   * words thirty times gains nothing over the page (test/search/stuffing.test.ts).
   * 3 keeps some of what prose says by repeating a word (kubernetes-rollback
   * names `kubectl` five times); 2, 3 and 4 rank every fixture alike.
   */
  fieldTermCap: 3,
  /**
   * Lexical diversity (TextSignals.textDiversity): distinct words over
   * total^DIVERSITY_HEAPS in the first DIVERSITY_WORDS. Prose of every fixture
   * (curate-golden, ranking-baseline, the adapters' fixtures, the nl library)
   * scores 0.98–1 (the lowest a ranking-baseline reference page listing
   * `docker` commands); the nl/stuffed-* twins 0.06–0.13.
   */
  diversityHeaps: 0.8,
  diversityWords: 1024,
  /** Fewer words than this are too few to judge (a one-line fact): no penalty. */
  diversityMinWords: 16,
  /**
   * Below LOW_DIVERSITY the score is multiplied by (diversity / LOW_DIVERSITY)²,
   * never by less than LOW_DIVERSITY_FLOOR: a stuffed twin keeps being found
   * (it still matches) but ranks below the item that answers the question
   * (nl/stuffed-huge-images, nl/stuffed-flaky; the floor keeps it in the list
   * when it is the only match). 0.7 stays well under prose (0.98–1) and
   * catches a short twin too: one sentence of keywords fourteen times over
   * scores 0.3 (test/search/stuffing.test.ts), squared 0.18 of the way.
   */
  lowDiversity: 0.7,
  lowDiversityFloor: 0.2,

  /**
   * Pseudo-relevance feedback over labels (domain/Feedback.ts, decision 0046):
   * when the best candidate of a question of FEEDBACK_MIN_GROUPS or more words
   * does not hold all of them, up to FEEDBACK_TERMS stems of its tags are read
   * as more words of the question, and each other current candidate gains
   * FEEDBACK_WEIGHT × the share of them in its name, tags or description.
   * Motivated by nl/too-many-requests ("clients are getting 429 too many
   * requests errors" finds `knowledge/rate-limiting`, whose tags `api`,
   * `rate-limit` are the labels of the other answer, `facts/api-rate-limit`,
   * which says none of the question's words but "requests"): of 0.03, 0.05,
   * 0.07 and 0.1 only 0.1 ranks both answers first and second on the tuning
   * half. OFF (0): at 0.1 the held-out half gained nDCG
   * (0.9432 → 0.9505 with name words as well, 0.9491 tags only) but one of
   * its queries then ranked a decoy above a relevant item, where none did —
   * a look-alike carries the answer's tags too (on the tuning half the lifted
   * ones were nl/undo-deploy's `commands/kubernetes-rollback-alerts` and
   * nl/stuffed-screen-reader's twin). Kept measurable, not on.
   */
  feedbackWeight: 0,
  feedbackTerms: 6,
  feedbackMinGroups: 3,

  /**
   * Related developer vocabulary (domain/RelatedTerms.ts, decision 0051): a
   * word of the question the item lacks counts as RELATED_TERM of a matched
   * word, in relevance and coverage alike, when a related word is in the
   * item's labels (name, description, tags, aliases, hints). Below 1, so the
   * word asked always beats a word related to it; it only fills words the
   * item lacks, so it adds nothing to an item holding every word. Motivated
   * by nl/commit-wording ("word" ↔ "write": `knowledge/commit-messages` under
   * `commands/open-pr`, whose BM25 for "description" is the best — coverage
   * alone did not lift it), nl/too-many-requests ("429 too many requests" ↔
   * `facts/api-rate-limit`), nl/purge-cdn ("users … css" ↔ "visitors …
   * assets": from outside the top 6 to third) and nl/naming-tables ("call" ↔
   * "naming": still second, under the decoy `skills/database-migrations`
   * that holds "new", "tables" and "database"). 0.35 ranks the tuning half
   * alike; 0.75 lowered curate-golden (0.9984 → 0.9973).
   */
  relatedTerm: 0.5
} as const

export type BeliefClass = "current" | "deprecated" | "historical"

/** What the search program measures for one candidate. */
export interface RankingFeatures {
  /** bm25 relative to the best candidate, in (0, 1]. */
  readonly relevance: number
  /** IDF-weighted share of the query groups the item contains, in [0, 1]. */
  readonly coverage: number
  /**
   * IDF-weighted share of the query groups the item lacks but whose related
   * words (domain/RelatedTerms.ts) are in its labels, in [0, 1 − coverage].
   */
  readonly relatedCoverage?: number | undefined
  readonly exactName: boolean
  readonly exactAlias: boolean
  /** Share of query groups whose words all appear in the name, in [0, 1]. */
  readonly nameCoverage: number
  /** Share of query groups equal to one of the item's tags, in [0, 1]. */
  readonly tagMatch: number
  readonly type?: string | undefined
  readonly quality?: string | undefined
  /** Utility in [0, 1] and the age of that value in milliseconds. */
  readonly utility?: { readonly value: number; readonly ageMs: number } | undefined
  readonly belief: BeliefClass
  readonly stale: boolean
  /** Lexical diversity measured at index time (TextSignals.textDiversity), when known. */
  readonly diversity?: number | undefined
}

export interface Ranked {
  /** Orders the list (unbounded above, so exact matches still compare among themselves). */
  readonly raw: number
  /** What users see: raw clamped to [0, 1]. */
  readonly score: number
  /** Ranking signals that applied, for the hit's `why`. */
  readonly signals: ReadonlyArray<string>
}

const clamp01 = (x: number): number => (Number.isFinite(x) ? Math.min(1, Math.max(0, x)) : 0)

/** The utility multiplier: 1 ± utilityRange at the extremes, 1 for the prior (0.5) or evidence decayed to it. */
export const utilityFactor = (utility: { readonly value: number; readonly ageMs: number }): number =>
  1 + RANKING.utilityRange * 2 * (clamp01(decayed(clamp01(utility.value), utility.ageMs)) - UTILITY_PRIOR)

/** One candidate's score from its features, with the signals that applied. */
export const rank = (f: RankingFeatures): Ranked => {
  const signals: Array<string> = []
  const related = clamp01(f.relatedCoverage ?? 0)
  const found = RANKING.relatedTerm * related
  let raw = RANKING.relevance * clamp01(clamp01(f.relevance) + found) + RANKING.coverage * clamp01(clamp01(f.coverage) + found)
  if (found > 0) signals.push("related-terms")
  if (f.exactName) {
    raw += RANKING.exactName
    signals.push("exact-name")
  } else if (f.exactAlias) {
    raw += RANKING.exactAlias
    signals.push("exact-alias")
  }
  raw += RANKING.nameCoverage * clamp01(f.nameCoverage)
  raw += RANKING.tagMatch * clamp01(f.tagMatch)
  if (f.type !== undefined && RANKING.actionableTypes.includes(f.type)) {
    raw += RANKING.actionableType
    signals.push(`type:${f.type}`)
  }
  if (f.quality === "curated") {
    raw += RANKING.curated
    signals.push("quality:curated")
  }
  if (f.utility !== undefined) {
    const factor = utilityFactor(f.utility)
    raw *= factor
    if (factor !== 1) signals.push(factor > 1 ? "utility:+" : "utility:-")
  }
  if (f.diversity !== undefined && f.diversity < RANKING.lowDiversity) {
    raw *= Math.max(RANKING.lowDiversityFloor, (f.diversity / RANKING.lowDiversity) ** 2)
    signals.push("low-diversity")
  }
  if (f.belief === "historical") {
    raw = Math.min(raw * RANKING.historicalFactor, RANKING.historicalCeiling)
    signals.push("belief:historical")
  } else if (f.belief === "deprecated") {
    raw = Math.min(raw * RANKING.deprecatedFactor, RANKING.deprecatedCeiling)
    signals.push("deprecated")
  }
  if (f.stale) {
    raw *= RANKING.staleFactor
    signals.push("stale")
  }
  return { raw, score: clamp01(raw), signals }
}

/** Hits in rank order: higher raw first, ties broken by ref (spec 04 §3 step 6). */
export const compareRanked = (a: { readonly raw: number; readonly ref: string }, b: { readonly raw: number; readonly ref: string }): number =>
  b.raw - a.raw || (a.ref < b.ref ? -1 : a.ref > b.ref ? 1 : 0)

/** Reciprocal-rank fusion's damping constant (the common k = 60): hybrid search only (R-SRCH-4). */
export const RRF_K = 60

/**
 * Orders the union of several ranked lists of refs by Σ 1/(RRF_K + rank):
 * how lexical and semantic candidates combine (R-SRCH-4). Ties by ref.
 */
export const fuseRanks = (lists: ReadonlyArray<ReadonlyArray<string>>): ReadonlyArray<string> => {
  const fused = new Map<string, number>()
  for (const list of lists) list.forEach((ref, i) => fused.set(ref, (fused.get(ref) ?? 0) + 1 / (RRF_K + i + 1)))
  return [...fused].sort((a, b) => b[1] - a[1] || (a[0] < b[0] ? -1 : a[0] > b[0] ? 1 : 0)).map(([ref]) => ref)
}

/** IDF of a term in `df` of `n` items: always positive, so every matched word counts for something. */
export const idf = (df: number, n: number): number => Math.log(1 + (n - df + 0.5) / (df + 0.5))
