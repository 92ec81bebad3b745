import { Clock, Effect, Option } from "effect"
import { capRedacted } from "../domain/Redaction.js"
import { feedbackShare, feedbackTerms, isWeak } from "../domain/Feedback.js"
import { groupWeights, matchedFields, measure, termsOf, type RankedQuery } from "../domain/MatchFeatures.js"
import { parseQuery } from "../domain/Query.js"
import { compareRanked, fuseRanks, rank, RANKING } from "../domain/Ranking.js"
import { DEFAULT_LIMIT, limitQueryTerms, MAX_LIMIT, MAX_QUERY_TERMS, type ItemFilters, type SearchHit, type SearchInput, type SearchResult } from "../domain/Search.js"
import { makeSnippet, snippetTerms, withoutTitleHeading, type SnippetTerms } from "../domain/Snippet.js"
import { Embeddings } from "../services/Embeddings.js"
import { IndexStore, type Candidate, type CandidateMatch, type IndexedItem } from "../services/IndexStore.js"
import { Redactor } from "../services/Redactor.js"
import { MAX_STORED_QUERY, UsageLog } from "../services/UsageLog.js"
import { WorkspaceConfig } from "../services/WorkspaceConfig.js"
import { bundleNotFound } from "./bundle/notFound.js"
import { showNext } from "./showNext.js"
import { nextTurn } from "../domain/NextTurn.js"
import { yieldIfSpent } from "../domain/EventLoopSlice.js"

/**
 * Candidates re-ranked per search: three times the limit and at least 50, so
 * coverage and the boosts of the ranking table can lift an item that bm25
 * alone placed below the limit; a larger pool changed no result of the
 * quality fixtures and costs about 5 µs per candidate.
 */
const POOL_FACTOR = 3
const POOL_MIN = 50

const round = (score: number): number => Math.round(score * 1000) / 1000

/**
 * How much of an item's text a snippet is looked for in: a term past it is
 * quoted from the description instead, and a huge page costs no more than this.
 */
const SNIPPET_SOURCE_CHARS = 32_768

type Unsnipped = Omit<SearchHit, "snippet">

const hitOf = (item: IndexedItem, score: number, why: ReadonlyArray<string>): Unsnipped => ({
  ref: item.ref,
  type: item.type ?? null,
  name: item.name,
  description: item.description ?? null,
  bundle: item.bundle,
  score: round(score),
  tokens: item.tokens ?? Math.ceil(item.bytes / 4),
  tokensEstimated: item.tokens === undefined,
  path: item.path,
  editable: item.editable,
  why,
  next: showNext(item.ref)
})

/**
 * Lexical candidates with the fallbacks of spec 04 §3 step 3: zero hits →
 * prefix terms (`tok*`) → substrings of the words through the trigram table.
 */
const lexicalCandidates = (store: IndexStore["Type"], query: RankedQuery, filters: ItemFilters, pool: number) =>
  Effect.gen(function* () {
    const attempt = (match: CandidateMatch, ranked: RankedQuery) => Effect.map(store.candidates({ match, filters, limit: pool }), (set) => ({ set, ranked }))
    if (query._tag === "Substring") return yield* attempt(query, query)
    const exact = yield* attempt({ _tag: "Words", groups: query.groups, prefix: false }, query)
    if (exact.set.total > 0) return exact
    const prefixed = yield* attempt({ _tag: "Words", groups: query.groups, prefix: true }, query)
    if (prefixed.set.total > 0) return prefixed
    const segments = query.groups.filter((g) => !g.phrase && [...g.tokens[0]!].length >= 3).map((g) => g.tokens[0]!)
    if (segments.length === 0) return prefixed
    const substring: RankedQuery = { _tag: "Substring", segments }
    return yield* attempt(substring, substring)
  })

/** Ranks candidates with the ranking table (spec 04 §3 step 4); one hit per item, ties by ref. */
const rankCandidates = (query: RankedQuery, candidates: ReadonlyArray<Candidate>, weights: ReadonlyArray<number>, nowMs: number) => {
  const bestLexical = Math.max(0, ...candidates.map((c) => c.lexical))
  return candidates
    .map((c) => {
      const ranked = rank(measure(query, c.item, c.lexical, c.matched, { bestLexical, weights, nowMs }))
      return { item: c.item, matched: c.matched, lexical: c.lexical, raw: ranked.raw, score: ranked.score, signals: ranked.signals, ref: c.item.ref }
    })
    .sort(compareRanked)
}

type Ranked = ReturnType<typeof rankCandidates>[number]

/** How far below its successor a replaced item is placed when it would rank above it. */
const BELOW = 1e-6

/** Deprecated or past its staleness date: ranking signals of rank(). */
const isOutdated = (r: Ranked): boolean => r.signals.includes("deprecated") || r.signals.includes("stale")

/**
 * The refs that may succeed an outdated item without a link: its own ref with
 * trailing `-word`s removed (`runbooks/db-failover-2024` → `runbooks/db-failover`,
 * `knowledge/error-tracking-rollbar` → `knowledge/error-tracking`), longest first.
 */
const impliedSuccessors = (ref: string): ReadonlyArray<string> => {
  const cut = ref.lastIndexOf("/") + 1
  const out: Array<string> = []
  for (let i = ref.lastIndexOf("-"); i > cut; i = ref.lastIndexOf("-", i - 1)) out.push(ref.slice(0, i))
  return out
}

/**
 * Supersession in ranking (issue 25, spec 04 §6). A replaced item's match
 * belongs to its successor: the successor ranks with the better of its own
 * match and the replaced item's (the old text used the question's words:
 * "openvpn profile" finds the WireGuard page that replaced the OpenVPN one,
 * even when default search hides the old page), and an outdated item never
 * ranks above its successor. The successor is the `supersededBy` link (a
 * project rule's id resolved by the index), else for a deprecated or stale
 * item a current item whose ref it extends (`…/db-failover-2024` →
 * `…/db-failover`). One link, from index.db only (R-SRCH-1).
 */
const followSuccessors = (
  store: IndexStore["Type"],
  query: RankedQuery,
  ordered: ReadonlyArray<Ranked>,
  hidden: ReadonlyArray<Candidate>,
  filters: ItemFilters,
  weights: ReadonlyArray<number>,
  nowMs: number
) =>
  Effect.gen(function* () {
    if (filters.belief === "historical" || (hidden.length === 0 && !ordered.some((r) => r.item.supersededBy !== undefined || isOutdated(r)))) return ordered
    const listed = new Map(ordered.map((r) => [r.ref, r]))
    const olds: Array<{ readonly old: Candidate; readonly next: ReadonlyArray<string> }> = [
      ...hidden.flatMap((c) => (c.item.supersededBy === undefined ? [] : [{ old: c, next: [c.item.supersededBy] }])),
      ...ordered.flatMap((r) => {
        const next = r.item.supersededBy !== undefined ? [r.item.supersededBy] : isOutdated(r) ? impliedSuccessors(r.ref) : []
        return next.length === 0 ? [] : [{ old: { item: r.item, lexical: r.lexical, matched: r.matched }, next }]
      })
    ]
    const wanted = [...new Set(olds.flatMap((o) => o.next))].filter((ref) => !listed.has(ref))
    const found = new Map((yield* store.items(wanted, filters)).map((item) => [item.ref, item]))
    const current = (ref: string) => listed.get(ref)?.item ?? found.get(ref)
    // Each old item's successor: the first candidate that exists and is not outdated itself.
    const successorOf = new Map<string, string>()
    const best = new Map<string, Candidate>()
    for (const { old, next } of olds) {
      const ref = next.find((n) => n !== old.item.ref && current(n) !== undefined && (listed.get(n) === undefined || !isOutdated(listed.get(n)!)))
      if (ref === undefined) continue
      successorOf.set(old.item.ref, ref)
      const known = best.get(ref)
      if (known === undefined || old.lexical > known.lexical) best.set(ref, old)
    }
    const bestLexical = Math.max(0, ...ordered.map((r) => r.lexical), ...hidden.map((c) => c.lexical))
    const inherited = new Map<string, Ranked>()
    for (const [ref, old] of best) {
      const item = current(ref)!
      const ranked = rank(measure(query, item, old.lexical, old.matched, { bestLexical, weights, nowMs }))
      const own = listed.get(ref)
      if (own === undefined || ranked.raw > own.raw) {
        inherited.set(ref, { item, matched: own?.matched ?? old.matched, lexical: old.lexical, raw: ranked.raw, score: ranked.score, signals: [...ranked.signals, "successor"], ref })
      }
    }
    const all = [...ordered.map((r) => inherited.get(r.ref) ?? r), ...[...inherited.values()].filter((r) => !listed.has(r.ref))]
    const byRef = new Map(all.map((r) => [r.ref, r]))
    return all
      .map((r) => {
        const ref = successorOf.get(r.ref)
        const next = ref === undefined ? undefined : byRef.get(ref)
        if (next === undefined || r.raw < next.raw) return r
        const raw = next.raw - BELOW
        return { ...r, raw, score: Math.max(0, Math.min(1, raw)) }
      })
      .sort(compareRanked)
  })

/**
 * Pseudo-relevance feedback over labels (domain/Feedback.ts, decision 0046):
 * when the best match of a longer question holds only some of its words,
 * the best match's tags and name words count as more words of the question
 * for the other current candidates. Replaced, deprecated and stale items gain
 * nothing, so none passes its successor; nor do repetitive pages (a stuffed
 * twin carries the answer's tags: nl/stuffed-screen-reader).
 */
const withFeedback = (query: RankedQuery, ordered: ReadonlyArray<Ranked>, weights: ReadonlyArray<number>): ReadonlyArray<Ranked> => {
  if (RANKING.feedbackWeight === 0 || query._tag !== "Words" || ordered.length < 2) return ordered
  const best = ordered[0]!
  let total = 0
  let covered = 0
  for (let i = 0; i < weights.length; i++) {
    total += weights[i]!
    if (best.matched[i] === true) covered += weights[i]!
  }
  if (!isWeak(query.groups.length, total > 0 ? covered / total : 1)) return ordered
  const expansion = feedbackTerms(query.groups, best.item)
  if (expansion.length === 0) return ordered
  return ordered
    .map((r, i) => {
      if (i === 0 || isOutdated(r) || r.signals.includes("belief:historical") || r.signals.includes("low-diversity")) return r
      const share = feedbackShare(expansion, r.item, termsOf)
      if (share === 0) return r
      const raw = r.raw + RANKING.feedbackWeight * share
      return { ...r, raw, score: Math.max(0, Math.min(1, raw)), signals: [...r.signals, "feedback"] }
    })
    .sort(compareRanked)
}

/**
 * The optional Embeddings source (R-SRCH-4): its nearest items join the
 * lexical candidates and the union is ordered by reciprocal-rank fusion.
 * Without a layer for it, the lexical order stands.
 */
const withSemantic = (store: IndexStore["Type"], embeddings: Embeddings["Type"], text: string, ranked: ReadonlyArray<Ranked>, filters: ItemFilters, pool: number) =>
  Effect.gen(function* () {
    const near = yield* embeddings.nearest(text, pool)
    if (near.length === 0) return ranked
    const known = new Map(ranked.map((r) => [r.ref, r]))
    for (const item of yield* store.items(near.map((m) => m.ref).filter((ref) => !known.has(ref)), filters)) {
      const similarity = Math.max(0, Math.min(1, near.find((m) => m.ref === item.ref)?.similarity ?? 0))
      known.set(item.ref, { item, matched: [], lexical: 0, raw: similarity, score: similarity, signals: ["semantic"], ref: item.ref })
    }
    return fuseRanks([ranked.map((r) => r.ref), near.map((m) => m.ref).filter((ref) => known.has(ref))]).map((ref) => known.get(ref)!)
  })

/** What an empty workspace's search says to do. */
export const NO_BUNDLES = "no bundles yet: add one with `akm bundle add <path>`"

const clampLimit = (limit: number): number => Math.min(MAX_LIMIT, Math.max(1, Math.floor(limit)))

/** --limit, else config `search.limit` (the config is read only then), else 20. */
const limitFor = (input: SearchInput) =>
  input.limit !== undefined
    ? Effect.succeed(clampLimit(input.limit))
    : Effect.map(Effect.flatMap(WorkspaceConfig, (w) => w.read), (config) => clampLimit(config.search?.limit ?? DEFAULT_LIMIT))

/** Each hit with its snippet, quoted from its description or the opening of its text (issue 15 item 6). */
const withSnippets = (store: IndexStore["Type"], hits: ReadonlyArray<Unsnipped>, terms: SnippetTerms) =>
  Effect.map(store.excerpts(hits.map((h) => h.ref), SNIPPET_SOURCE_CHARS), (texts): ReadonlyArray<SearchHit> =>
    hits.map((h) => ({ ...h, snippet: makeSnippet(terms, [h.description ?? undefined, withoutTitleHeading(texts.get(h.ref) ?? "", h.name)]) })))

/** `--bundle` names only bundles there are (spec 04 §3): the index's, else the config's (a bundle not indexed yet). */
const checkBundles = (named: ReadonlyArray<string> | undefined, indexed: ReadonlyArray<string>) =>
  Effect.gen(function* () {
    const unknown = (named ?? []).filter((b) => !indexed.includes(b))
    if (unknown.length === 0) return
    const configured = Object.keys((yield* (yield* WorkspaceConfig).read).bundles)
    const missing = unknown.find((b) => !configured.includes(b))
    if (missing !== undefined) return yield* bundleNotFound(missing, [...new Set([...configured, ...indexed])].sort())
  })

/**
 * `akm search <query>` over an index.db that has been built (spec 04 §3):
 * normalise → browse or lexical candidates (filters after the match) → rank →
 * hits. Reads only index.db — stale bundles and writability are recorded
 * there at index time — and the config when no limit is given (R-SRCH-1).
 * Records one usage event per search (R-SRCH-2), its query redacted and capped at 1 KiB. `started` (Clock nanos) is
 * when the command began, so timingMs counts a rebuild done before it.
 */
export const searchIndexed = (input: SearchInput, started: bigint) => Effect.gen(function* () {
  const store = yield* IndexStore
  // Read before the match, not after: a small read right after the full-text statements costs several times more.
  const bundles = yield* store.bundles
  yield* checkBundles(input.bundles, bundles.map((b) => b.bundle))
  const limit = yield* limitFor(input)
  const filters: ItemFilters = {
    bundles: input.bundles,
    types: input.types,
    adapters: input.adapters,
    belief: input.belief ?? "current",
    includeProposed: input.includeProposed === true,
    scope: input.filters
  }
  // At most MAX_QUERY_TERMS terms: a pasted page is answered from its first ones (issue 15 item 7).
  const { query: parsed, dropped } = limitQueryTerms(parseQuery(input.query))
  const nowMs = yield* Clock.currentTimeMillis
  let hits: ReadonlyArray<Unsnipped>
  // The terms as the match used them: the substring fallback's segments when it ran.
  let terms: SnippetTerms
  let total: number
  if (parsed._tag === "All" || parsed._tag === "Browse") {
    // Browsing lists in ref order with score 1 (spec 04 §3 step 2).
    const listed = yield* store.browse(parsed._tag === "All" ? { prefix: "", filters, limit } : { bundle: parsed.bundle, prefix: parsed.prefix, filters, limit })
    hits = listed.items.map((item) => hitOf(item, 1, ["browse"]))
    total = listed.total
    terms = snippetTerms(parsed)
  } else {
    const pool = Math.max(limit * POOL_FACTOR, POOL_MIN)
    const { set, ranked } = yield* lexicalCandidates(store, parsed, filters, pool)
    // The query and the ranking are each a few ms: the loop may turn between them (decision 0053).
    yield* yieldIfSpent
    terms = snippetTerms(ranked)
    const weights = groupWeights(set.documentFrequency, set.documentCount)
    const ordered = withFeedback(ranked, yield* followSuccessors(store, ranked, rankCandidates(ranked, set.candidates, weights, nowMs), set.replaced ?? [], filters, weights, nowMs), weights)
    // Truly optional (R-SRCH-4): no shipped layer provides Embeddings yet; an embedding program may add one.
    const embeddings = yield* Effect.serviceOption(Embeddings)
    const fused = Option.isNone(embeddings) ? ordered : yield* withSemantic(store, embeddings.value, input.query, ordered, filters, pool)
    hits = fused.slice(0, limit).map((r) => hitOf(r.item, r.score, [...matchedFields(ranked, r.item, r.matched), ...r.signals]))
    total = Math.max(set.total, fused.length)
  }

  // The match and ranking, the snippets and the usage record each take a turn of their own (stalls, issue 28 item 4).
  yield* nextTurn
  const snipped = yield* withSnippets(store, hits, terms)
  const stale = bundles.filter((s) => s.staleReason !== undefined && (input.bundles === undefined || input.bundles.includes(s.bundle))).map((s) => s.bundle)

  // The query is echoed and stored only redacted (R-RED-1): a searched-for secret reaches neither stdout nor state.db.
  const query = yield* (yield* Redactor).redact(input.query)
  if (input.track !== false) yield* Effect.zipRight(nextTurn, (yield* UsageLog).recordSearch(capRedacted(query, MAX_STORED_QUERY), hits.map((h) => h.ref), input.source ?? "user"))
  const elapsed = Number((yield* Clock.currentTimeNanos) - started) / 1e6
  return {
    query,
    hits: snipped,
    total,
    stale,
    timingMs: Math.round(elapsed * 100) / 100,
    ...(dropped === 0 ? {} : { queryTruncated: { kept: MAX_QUERY_TERMS, dropped } }),
    ...(bundles.length === 0 ? { hint: NO_BUNDLES } : {})
  } satisfies SearchResult
})
