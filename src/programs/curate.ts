import { Clock, Effect, Either } from "effect"
import { CURATE_DEFAULTS, familyOf, KEYWORD_FALLBACK_MIN_TERMS, pack, type PackCandidate, type PackLevel } from "../domain/Curate.js"
import { UsageError } from "../domain/Errors.js"
import { stem, STOPWORDS, tokenize } from "../domain/Query.js"
import type { SearchHit, SearchInput } from "../domain/Search.js"
import { IndexStore } from "../services/IndexStore.js"
import { capRedacted } from "../domain/Redaction.js"
import { Redactor } from "../services/Redactor.js"
import { WorkspaceConfig } from "../services/WorkspaceConfig.js"
import { bundleNotFound } from "./bundle/show.js"
import { MAX_STORED_QUERY, UsageLog, type EventSource } from "../services/UsageLog.js"
import { ensureIndexed } from "./ensureIndexed.js"
import { searchIndexed } from "./searchIndexed.js"
import { exactTokens, readItem, showNext, targetOf, textHash } from "./show.js"

export interface CurateInput {
  /** What the agent is about to do, in its own words. */
  readonly task: string
  /** Tokens the items may use together; default 4000. */
  readonly budget?: number | undefined
  readonly bundles?: ReadonlyArray<string> | undefined
  /** Items at most; default 10. */
  readonly limit?: number | undefined
  /** Record the curated set as a search in the usage log (R-SRCH-2); default true. */
  readonly track?: boolean | undefined
  readonly source?: EventSource | undefined
}

export interface CurateItem {
  readonly ref: string
  readonly type: string | null
  readonly name: string
  readonly description: string | null
  readonly level: PackLevel
  /** Exact tokens of what this item contributes: its content (full) or its card text (card). */
  readonly tokens: number
  readonly score: number
  /** Full items only: the native text (key names only for env and secret items). */
  readonly content?: string | undefined
  readonly next: string
}

export interface CurateResult {
  readonly task: string
  readonly budget: number
  /** The sum of the items' tokens; never more than the budget. */
  readonly tokens: number
  /** In rank order. */
  readonly items: ReadonlyArray<CurateItem>
}

/** Candidates looked at for a budget: more than fit, so the packer can skip what is too large. */
const CANDIDATES = 30
/** Hits taken from each keyword's own search when the task is long. */
const PER_KEYWORD = 8

/** The card an agent reads for an item given as a card: name, type, description and how to open it. */
export const cardText = (hit: Pick<SearchHit, "name" | "type" | "description" | "ref">): string =>
  `${hit.name}${hit.type === null ? "" : ` (${hit.type})`}${hit.description === null ? "" : `: ${hit.description}`}\n${showNext(hit.ref)}`

/** The task's content words, one per stem, in order: the keywords of the per-keyword fallback. */
export const keywords = (task: string): ReadonlyArray<string> => {
  const seen = new Set<string>()
  return tokenize(task).filter((word) => {
    if (STOPWORDS.has(word) || word.length < 2) return false
    const key = stem(word)
    if (seen.has(key)) return false
    seen.add(key)
    return true
  })
}

/**
 * Search with a per-keyword fallback (spec 04 §5): a long task described in
 * natural language shares only some words with the items it needs, so each
 * keyword is also searched on its own and items found by several keywords
 * join after the hits of the whole task, ordered by how many keywords found them.
 */
const candidates = Effect.fn("curate.candidates")(function* (task: string, bundles: ReadonlyArray<string> | undefined, limit: number) {
  const started = yield* Clock.currentTimeNanos
  const search = (input: SearchInput) => searchIndexed(input, started)
  const whole = yield* search({ query: task, limit: Math.max(CANDIDATES, limit), bundles, track: false })
  const words = keywords(task)
  if (words.length < KEYWORD_FALLBACK_MIN_TERMS && whole.hits.length >= limit) return whole.hits
  const found = new Map<string, { hit: SearchHit; keywords: number; best: number }>()
  for (const word of words) {
    const result = yield* search({ query: word, limit: PER_KEYWORD, bundles, track: false })
    for (const hit of result.hits) {
      const entry = found.get(hit.ref)
      if (entry === undefined) found.set(hit.ref, { hit, keywords: 1, best: hit.score })
      else {
        entry.keywords++
        entry.best = Math.max(entry.best, hit.score)
      }
    }
  }
  const seen = new Set(whole.hits.map((hit) => hit.ref))
  const extra = [...found.values()]
    .filter((entry) => !seen.has(entry.hit.ref))
    .sort((a, b) => b.keywords - a.keywords || b.best - a.best || (a.hit.ref < b.hit.ref ? -1 : 1))
    .map((entry) => ({ ...entry.hit, score: Math.min(entry.best, whole.hits.at(-1)?.score ?? entry.best) }))
  return [...whole.hits, ...extra]
})

/**
 * `akm curate` (spec 04 §5): the best items for a task within a token budget —
 * full content for the best few (one per family and type), cards for the
 * rest, exact token counts, no model calls (R-CUR-1), never over budget.
 * `ensureBuilt` runs before the search: ensureIndexed for the full CLI, and
 * Effect.void on the start-up fast path, which opens only a built index.
 */
export const curateWith = <E, R>(ensureBuilt: Effect.Effect<void, E, R>) =>
  Effect.fn("curate")(function* (input: CurateInput) {
    const task = input.task.trim()
    if (task === "") return yield* new UsageError({ message: "describe the task to curate for", hint: 'e.g. akm curate "deploy the app with docker compose"' })
    const budget = input.budget ?? CURATE_DEFAULTS.budget
    if (!Number.isInteger(budget) || budget < 1) return yield* new UsageError({ message: `--budget must be a positive whole number of tokens (got ${budget})`, hint: "e.g. --budget 4000" })
    const limit = input.limit ?? CURATE_DEFAULTS.maxItems
    if (!Number.isInteger(limit) || limit < 1) return yield* new UsageError({ message: `--limit must be a positive whole number (got ${limit})`, hint: "e.g. --limit 10" })

    if (input.bundles !== undefined && input.bundles.length > 0) {
      const configured = Object.keys((yield* (yield* WorkspaceConfig).read).bundles)
      const unknown = input.bundles.find((bundle) => !configured.includes(bundle))
      if (unknown !== undefined) return yield* bundleNotFound(unknown, configured)
    }

    const index = yield* IndexStore
    yield* ensureBuilt
    const hits = (yield* candidates(task, input.bundles, limit)).slice(0, CANDIDATES)

    const docs = yield* Effect.forEach(hits, (hit) => index.resolve(hit.ref))
    const skills = docs.flatMap((doc) => (doc?.type === "skill" ? [{ ref: doc.ref, files: doc.files }] : []))
    // A reference whose skill did not come up is still one family with it: look the skill up by its ref.
    for (const doc of docs) {
      if (doc === undefined || doc.type === "skill") continue
      const segments = doc.conceptId.split("/")
      for (let cut = segments.length - 1; cut > 0; cut--) {
        const ancestor = segments.slice(0, cut).join("/")
        if (!(yield* index.has(doc.bundle, ancestor))) continue
        const owner = yield* index.resolve(`${doc.bundle}//${ancestor}`)
        if (owner?.type === "skill" && owner.files.includes(doc.path)) {
          skills.push({ ref: owner.ref, files: owner.files })
          break
        }
      }
    }

    const texts = new Map<string, string>()
    const packCandidates: Array<PackCandidate> = []
    for (const [i, hit] of hits.entries()) {
      const doc = docs[i]
      const card = cardText(hit)
      // Cards are cached like contents (keyed by their own hash), so a repeated curate never loads the tokenizer.
      const cardTokens = yield* exactTokens(textHash(card), card)
      let fullTokens: number | undefined
      // Full content is read for the best few only: the rest can only ever be cards.
      if (doc !== undefined && packCandidates.length < limit) {
        const item = yield* Effect.either(Effect.flatMap(targetOf(doc), (target) => readItem(target, true)))
        if (Either.isRight(item) && item.right.text !== undefined && !item.right.tokensEstimated) {
          texts.set(hit.ref, item.right.text)
          fullTokens = item.right.tokens
        }
      }
      packCandidates.push({
        ref: hit.ref,
        type: hit.type ?? undefined,
        family: doc === undefined ? hit.ref : familyOf({ ref: doc.ref, path: doc.path }, skills),
        cardTokens,
        fullTokens,
        score: hit.score
      })
    }

    const packed = pack(packCandidates, { budget, maxItems: limit, maxFull: CURATE_DEFAULTS.maxFull, fullScoreRatio: CURATE_DEFAULTS.fullScoreRatio })
    const byRef = new Map(hits.map((hit) => [hit.ref, hit] as const))
    const items = packed.map((p): CurateItem => {
      const hit = byRef.get(p.ref)!
      return {
        ref: hit.ref,
        type: hit.type,
        name: hit.name,
        description: hit.description,
        level: p.level,
        tokens: p.tokens,
        score: hit.score,
        ...(p.level === "full" ? { content: texts.get(hit.ref) } : {}),
        next: showNext(hit.ref)
      }
    })
    // Echoed and stored only redacted, as search's query (R-RED-1).
    const shown = yield* (yield* Redactor).redact(task)
    if (input.track !== false) yield* (yield* UsageLog).recordSearch(capRedacted(shown, MAX_STORED_QUERY), items.map((item) => item.ref), input.source ?? "user")
    return { task: shown, budget, tokens: items.reduce((sum, item) => sum + item.tokens, 0), items } satisfies CurateResult
  })

/** `akm curate` as the full CLI runs it: as search (R-WS-2), a never-built index is built first. */
export const curate = curateWith(ensureIndexed)
