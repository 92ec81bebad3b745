import { Either, ParseResult, Schema } from "effect"
import { keyOf, SECTIONS, type Allocation, type BriefItem } from "./Brief.js"

/**
 * `.ai/index.json` (spec 08 R-BRF-3): one entry per artifact with the seed's
 * field names, sorted by path then ref, so a regenerated index diffs line by
 * line. `in_brief` is true when the item's content is in BRIEF.md; an item
 * the brief only points at (a pointer line, or the "…and N more" line) is
 * false: only briefed items carry staleness checks.
 */

export const IndexEntry = Schema.Struct({
  section: Schema.String,
  title: Schema.String,
  path: Schema.String,
  ref: Schema.String,
  score: Schema.Number,
  tokens: Schema.Number,
  tags: Schema.Array(Schema.String),
  in_brief: Schema.Boolean
})
export type IndexEntry = typeof IndexEntry.Type

export const BriefIndex = Schema.Struct({
  tier: Schema.String,
  budget: Schema.Number,
  brief: Schema.String,
  items: Schema.Array(IndexEntry)
})
export type BriefIndex = typeof BriefIndex.Type

const sectionIds: ReadonlyArray<string> = SECTIONS.map((s) => s.id)

export const compareEntries = (a: IndexEntry, b: IndexEntry): number => (a.path < b.path ? -1 : a.path > b.path ? 1 : a.ref < b.ref ? -1 : a.ref > b.ref ? 1 : 0)

export const indexOf = (input: { readonly tier: string; readonly budget: number; readonly items: ReadonlyArray<BriefItem>; readonly allocation: Allocation }): BriefIndex => ({
  tier: input.tier,
  budget: input.budget,
  brief: ".ai/BRIEF.md",
  items: input.items
    .map((i) => {
      const placed = input.allocation.placed.get(keyOf(i))
      return { section: i.section, title: i.title, path: i.path, ref: i.ref, score: i.score, tokens: i.tokens, tags: [...i.tags].sort(), in_brief: placed === "content" }
    })
    .sort(compareEntries)
})

export const renderIndex = (index: BriefIndex): string => `${JSON.stringify(index, null, 2)}\n`

const decode = Schema.decodeUnknownEither(BriefIndex)

/** A written index.json, or the problem naming what is wrong with it. */
export const parseIndex = (text: string): Either.Either<BriefIndex, string> => {
  let data: unknown
  try {
    data = JSON.parse(text)
  } catch (error) {
    return Either.left(`not valid JSON: ${(error as Error).message}`)
  }
  const decoded = decode(data)
  if (Either.isLeft(decoded)) {
    const issue = ParseResult.ArrayFormatter.formatErrorSync(decoded.left)[0]
    return Either.left(`${issue === undefined || issue.path.length === 0 ? "" : `${issue.path.map(String).join(".")}: `}${issue?.message ?? "invalid"}`)
  }
  const bad = decoded.right.items.find((e) => !sectionIds.includes(e.section))
  if (bad !== undefined) return Either.left(`item ${bad.path}: unknown section '${bad.section}'`)
  return Either.right(decoded.right)
}

export interface IndexDrift {
  readonly path: string
  readonly ref: string
  readonly message: string
}

const same = (a: ReadonlyArray<string>, b: ReadonlyArray<string>) => a.length === b.length && a.every((x, i) => x === b[i])

/**
 * What differs between the written index and a fresh one (R-BRF-3): an
 * artifact added or removed, or a briefed item changed. An item out of the
 * brief is stale only when where it belongs changed (section, title, tags,
 * in_brief): its tokens and score may move freely.
 */
export const indexDrift = (written: BriefIndex, fresh: BriefIndex): ReadonlyArray<IndexDrift> => {
  const key = (e: IndexEntry) => `${e.path}#${e.ref}`
  const old = new Map(written.items.map((e) => [key(e), e]))
  const now = new Map(fresh.items.map((e) => [key(e), e]))
  const out: Array<IndexDrift> = []
  for (const e of fresh.items) if (!old.has(key(e))) out.push({ path: e.path, ref: e.ref, message: "added since the brief was written" })
  for (const e of written.items) if (!now.has(key(e))) out.push({ path: e.path, ref: e.ref, message: "removed since the brief was written" })
  for (const e of fresh.items) {
    const w = old.get(key(e))
    if (w === undefined) continue
    const fields: Array<string> = []
    if (w.section !== e.section) fields.push("section")
    if (w.title !== e.title) fields.push("title")
    if (!same([...w.tags].sort(), [...e.tags].sort())) fields.push("tags")
    if (w.in_brief !== e.in_brief) fields.push("in_brief")
    if (w.in_brief || e.in_brief) {
      if (w.tokens !== e.tokens) fields.push("tokens")
      if (w.score !== e.score) fields.push("score")
    }
    if (fields.length > 0) out.push({ path: e.path, ref: e.ref, message: `${w.in_brief ? "briefed item " : ""}changed (${fields.join(", ")})` })
  }
  return out.sort((a, b) => (a.path < b.path ? -1 : a.path > b.path ? 1 : 0))
}
