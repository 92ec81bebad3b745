import type { ParsedQuery } from "./Query.js"

/**
 * `akm search` input and output (spec 04 §3). The hit shape is what agents
 * parse: keep it stable.
 */

import { normalizeTag } from "./Tag.js"

/** Which belief states a search returns (spec 04 §3 step 5). */
export type BeliefFilter = "current" | "historical" | "all"

export interface SearchInput {
  readonly query: string
  /** Default: config `search.limit`, else 20; at most 200. */
  readonly limit?: number | undefined
  readonly bundles?: ReadonlyArray<string> | undefined
  /** Case-insensitive, open vocabulary: an unknown type simply matches nothing. */
  readonly types?: ReadonlyArray<string> | undefined
  readonly adapters?: ReadonlyArray<string> | undefined
  /** Default `current`: items replaced by a current successor are left out. */
  readonly belief?: BeliefFilter | undefined
  /** `quality: proposed` items are left out unless asked for. */
  readonly includeProposed?: boolean | undefined
  /** Scope keys (`scope_<key>` in akm frontmatter) that must equal the value. */
  readonly filters?: Readonly<Record<string, string>> | undefined
  /** Record a usage event (R-SRCH-2); default true. */
  readonly track?: boolean | undefined
  /** Who searched (`AKM_EVENT_SOURCE`); only user events teach utility. */
  readonly source?: "user" | "agent" | "audit" | undefined
}

export interface SearchHit {
  readonly ref: string
  readonly type: string | null
  readonly name: string
  readonly description: string | null
  readonly bundle: string
  /** In [0, 1]; non-increasing down the list. */
  readonly score: number
  readonly tokens: number
  /** true when `tokens` is bytes / 4 because no exact count is cached for the item's content hash. */
  readonly tokensEstimated: boolean
  readonly path: string
  /** Whether the item's bundle is writable (proposals can change it). */
  readonly editable: boolean
  /** The fields that matched and the ranking signals that applied, e.g. ["name", "description", "type:skill"]. */
  readonly why: ReadonlyArray<string>
  /** The command that opens the item. */
  readonly next: string
  /** Where the item matches: an excerpt of its description or text, plain, whitespace collapsed, at most SNIPPET_CHARS (domain/Snippet.ts). */
  readonly snippet: string
}

export interface SearchResult {
  readonly query: string
  readonly hits: ReadonlyArray<SearchHit>
  /** Items that matched before `limit` cut the list. */
  readonly total: number
  /** Bundles whose index rows are kept from an earlier run because the last index failed for them. */
  readonly stale: ReadonlyArray<string>
  readonly timingMs: number
  /** Present when the query had more than MAX_QUERY_TERMS distinct terms: the first `kept` were searched for. */
  readonly queryTruncated?: { readonly kept: number; readonly dropped: number }
  /** Present when the workspace has no bundle to search: what to do next. */
  readonly hint?: string
}

/** The most hits one search returns, whatever --limit says. */
export const MAX_LIMIT = 200
export const DEFAULT_LIMIT = 20
/**
 * The most distinct terms (words, phrases, substrings) one search uses: the
 * first ones are kept. A pasted page has thousands, and each costs the match
 * statements a parameter (17,000 words failed with "too many SQL variables").
 */
export const MAX_QUERY_TERMS = 64

/** The query with at most MAX_QUERY_TERMS terms (the first ones), and how many were left out. */
export const limitQueryTerms = (query: ParsedQuery): { readonly query: ParsedQuery; readonly dropped: number } => {
  if (query._tag === "Words" && query.groups.length > MAX_QUERY_TERMS) return { query: { ...query, groups: query.groups.slice(0, MAX_QUERY_TERMS) }, dropped: query.groups.length - MAX_QUERY_TERMS }
  if (query._tag === "Substring" && query.segments.length > MAX_QUERY_TERMS) return { query: { ...query, segments: query.segments.slice(0, MAX_QUERY_TERMS) }, dropped: query.segments.length - MAX_QUERY_TERMS }
  return { query, dropped: 0 }
}

/** Belief states of knowledge that was replaced or withdrawn: `current` search hides them when a current successor exists. */
export const HISTORICAL_BELIEFS: ReadonlyArray<string> = ["superseded", "contradicted", "archived", "retired"]

/** Item filters applied after the full-text match (spec 04 §3 step 3, step 5). */
export interface ItemFilters {
  readonly bundles?: ReadonlyArray<string> | undefined
  readonly types?: ReadonlyArray<string> | undefined
  readonly adapters?: ReadonlyArray<string> | undefined
  readonly belief: BeliefFilter
  readonly includeProposed: boolean
  readonly scope?: Readonly<Record<string, string>> | undefined
}

/** A stored ref is always `bundle//conceptId`; a short `supersededBy` inside a bundle names a concept of that bundle (R-REF-3). */
export const qualifyRef = (bundle: string, ref: string): string => (ref.includes("//") ? ref : `${bundle}//${ref}`)

/**
 * The text of one item as the full-text tables index it: tags carry the
 * aliases too (spec 04 §1 weights 10/5/3/2/1), in their normal form.
 */
export interface SearchFields {
  readonly name: string
  readonly description: string
  readonly tags: string
  readonly hints: string
  readonly content: string
}

export const searchFields = (doc: {
  readonly name: string
  readonly description?: string | undefined
  readonly tags?: ReadonlyArray<string> | undefined
  readonly aliases?: ReadonlyArray<string> | undefined
  readonly hints?: ReadonlyArray<string> | undefined
  readonly content?: string | undefined
}): SearchFields => ({
  name: doc.name,
  description: doc.description ?? "",
  tags: [...new Set([...(doc.tags ?? []), ...(doc.aliases ?? [])].map(normalizeTag))].join(" "),
  hints: (doc.hints ?? []).join(" "),
  content: doc.content ?? ""
})

/**
 * Substring search reads the name, description, tags and at most this much of
 * an item's body: the trigram table costs about one index entry per character
 * (indexing 5,000 typical items took 3.5 s with 4 KiB of body, 0.9 s with
 * 512 characters; docs/search.md), and names, descriptions and a text's
 * opening are where substring and CJK queries land.
 */
export const TRIGRAM_CONTENT_CHARS = 512

/** Replaced or withdrawn knowledge: a historical belief state, or a named successor. */
export const isHistorical = (item: { readonly beliefState?: string | undefined; readonly supersededBy?: string | undefined }): boolean =>
  item.supersededBy !== undefined || (item.beliefState !== undefined && HISTORICAL_BELIEFS.includes(item.beliefState))

export const isDeprecated = (item: { readonly beliefState?: string | undefined; readonly status?: string | undefined }): boolean =>
  item.beliefState === "deprecated" || item.status === "deprecated"

/** What `--belief historical` lists: everything replaced, withdrawn or deprecated. */
export const isPast = (item: { readonly beliefState?: string | undefined; readonly supersededBy?: string | undefined; readonly status?: string | undefined }): boolean =>
  isHistorical(item) || isDeprecated(item)

/** The fields the filters read. */
export interface FilterableItem {
  readonly bundle: string
  readonly type?: string | undefined
  readonly adapter: string
  readonly quality?: string | undefined
  readonly beliefState?: string | undefined
  /** Fully qualified. */
  readonly supersededBy?: string | undefined
  readonly status?: string | undefined
  readonly scope?: Readonly<Record<string, string>> | undefined
}

/**
 * Replaced: a named successor is in the index and is current itself or
 * replaced in turn (a chain ends somewhere current).
 */
export const isReplaced = <A extends FilterableItem>(item: A, lookup: (ref: string) => A | undefined): boolean => {
  if (item.supersededBy === undefined) return false
  const successor = lookup(item.supersededBy)
  return successor !== undefined && (successor.supersededBy !== undefined || successor.beliefState === undefined || !HISTORICAL_BELIEFS.includes(successor.beliefState))
}

/** Types compare case-insensitively (spec 04 §3): ASCII lower case, as SQLite's lower() folds them. */
export const lowerType = (type: string): string => type.replace(/[A-Z]+/g, (c) => c.toLowerCase())

/** The filters of spec 04 §3 step 5, as one predicate (the SQLite layer states the same in SQL). */
export const passesFilters = <A extends FilterableItem>(item: A, filters: ItemFilters, lookup: (ref: string) => A | undefined): boolean =>
  (filters.bundles === undefined || filters.bundles.includes(item.bundle)) &&
  (filters.types === undefined || (item.type !== undefined && filters.types.some((t) => lowerType(t) === lowerType(item.type!)))) &&
  (filters.adapters === undefined || filters.adapters.includes(item.adapter)) &&
  (filters.includeProposed || item.quality !== "proposed") &&
  Object.entries(filters.scope ?? {}).every(([key, value]) => item.scope?.[key] === value) &&
  (filters.belief === "all" || (filters.belief === "current" ? !isReplaced(item, lookup) && item.beliefState !== "retired" : isPast(item)))
