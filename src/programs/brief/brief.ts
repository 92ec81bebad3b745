import { Effect, Either } from "effect"
import { allocate, BRIEF_PATH, fixedText, INDEX_PATH, keyOf, MIN_BUDGET, renderBrief, SECTIONS, TIERS, type Allocation, type BriefItem, type Tier } from "../../domain/brief/Brief.js"
import { indexDrift, indexOf, parseIndex, renderIndex, type BriefIndex, type IndexDrift } from "../../domain/brief/Index.js"
import { Conflict, UsageError } from "../../domain/Errors.js"
import type { FileChange } from "../../domain/FileChange.js"
import { driftedSections } from "../../domain/project/Regions.js"
import { Tokenizer } from "../../services/Tokenizer.js"
import { resolveProjectBundle, type ProjectTarget } from "../ledger/projectBundle.js"
import { readProjectConfig } from "../ledger/store.js"
import type { DirectResult } from "../proposals/direct.js"
import { hashOf, proposeProject, readOptional, refuseOutside } from "../project/files.js"
import type { ProjectInput } from "../project/rules.js"
import { collectItems, type RawItem } from "./items.js"

export interface BriefInput extends ProjectInput {
  readonly tier?: Tier | undefined
  readonly budget?: number | undefined
}

/** The tier and budget: --budget, else --tier, else .ai/config.json's briefBudget, else its briefTier. */
const budgetOf = (target: ProjectTarget, input: BriefInput, recorded?: { readonly tier: string; readonly budget: number }) =>
  Effect.gen(function* () {
    const { config } = yield* readProjectConfig(target.root)
    const tier: string = input.tier ?? recorded?.tier ?? config.briefTier
    const budget = input.budget ?? (input.tier !== undefined ? TIERS[input.tier] : recorded?.budget ?? config.briefBudget ?? TIERS[config.briefTier])
    if (!Number.isInteger(budget) || budget < MIN_BUDGET) {
      return yield* new UsageError({
        message: `a brief budget of ${budget} tokens is too small: the smallest is ${MIN_BUDGET} (the fixed sections' headings and one pointer each)`,
        hint: `use --tier lean (4,000 tokens) or set briefBudget to ${MIN_BUDGET} or more in .ai/config.json`
      })
    }
    return { tier: input.budget !== undefined && input.tier === undefined ? "custom" : tier, budget }
  })

export interface Composed {
  readonly name: string
  readonly tier: string
  readonly budget: number
  readonly items: ReadonlyArray<BriefItem>
  readonly allocation: Allocation
  readonly brief: string
  /** Exact o200k tokens of `brief`. */
  readonly tokens: number
  readonly index: BriefIndex
  readonly warnings: ReadonlyArray<string>
}

/**
 * Fits items into a budget (R-BRF-1/2): counts every item exactly, allocates,
 * renders, counts the whole text, and when joining pieces costs more than
 * their sum, shrinks the room by the overshoot and allocates again. It fails
 * rather than return a brief over its budget. `count` is the exact tokenizer.
 */
export const fitBrief = (input: { readonly name: string; readonly tier: string; readonly budget: number; readonly items: ReadonlyArray<RawItem> }, count: (text: string) => Effect.Effect<number>) =>
  Effect.gen(function* () {
    const { name, tier, budget } = input
    const items: Array<BriefItem> = []
    for (const r of input.items) items.push({ ...r, tokens: yield* count(`${r.content.trimEnd()}\n\n`), pointerTokens: yield* count(`${r.pointer}\n`) })
    const fixed = yield* count(fixedText(name, tier, budget, items.length))
    let room = budget - fixed
    for (let attempt = 0; attempt < 12 && room >= 0; attempt++) {
      const allocation = allocate(items, budget, room)
      const brief = renderBrief({ name, tier, budget, items, allocation })
      const tokens = yield* count(brief)
      if (tokens <= budget) return { name, tier, budget, items, allocation, brief, tokens, index: indexOf({ tier, budget, items, allocation }) }
      room -= tokens - budget + 8
    }
    return yield* new Conflict({
      message: `the brief cannot fit its ${budget}-token budget (${tier}): its fixed sections alone take ${fixed} tokens`,
      hint: "choose a larger tier (--tier standard or deep) or set a larger briefBudget in .ai/config.json; nothing was written"
    })
  })

const compose = (target: ProjectTarget, input: BriefInput, recorded?: { readonly tier: string; readonly budget: number }) =>
  Effect.gen(function* () {
    const { tier, budget } = yield* budgetOf(target, input, recorded)
    const tokenizer = yield* Tokenizer
    const { name, items, warnings } = yield* collectItems(target)
    const fitted = yield* fitBrief({ name, tier, budget, items }, tokenizer.count)
    return { ...fitted, warnings } satisfies Composed as Composed
  })

export interface BriefWrite {
  readonly bundle: string
  readonly tier: string
  readonly budget: number
  readonly tokens: number
  readonly items: number
  readonly content: number
  readonly pointers: number
  readonly more: number
  readonly files: ReadonlyArray<{ readonly path: string; readonly action: "created" | "updated" | "unchanged" }>
  readonly warnings: ReadonlyArray<string>
  readonly proposal?: DirectResult
}

const counts = (c: Composed) => {
  const placed = [...c.allocation.placed.values()]
  return { items: c.items.length, content: placed.filter((p) => p === "content").length, pointers: placed.filter((p) => p === "pointer").length, more: placed.filter((p) => p === "more").length }
}

/** `akm brief write` (R-BRF-1..4): BRIEF.md and index.json in one mechanical proposal. */
export const briefWrite = Effect.fn("brief.write")(function* (input: BriefInput = {}) {
  const target = yield* resolveProjectBundle(input)
  const composed = yield* compose(target, input)
  const changes: Array<FileChange> = []
  const files: Array<BriefWrite["files"][number]> = []
  for (const [p, after] of [[BRIEF_PATH, composed.brief], [INDEX_PATH, renderIndex(composed.index)]] as const) {
    yield* refuseOutside(target, p)
    const current = yield* readOptional(target, p)
    if (current === after) {
      files.push({ path: p, action: "unchanged" })
      continue
    }
    changes.push({ bundle: target.name, path: p, beforeHash: yield* hashOf(target, p, current !== undefined), after })
    files.push({ path: p, action: current === undefined ? "created" : "updated" })
  }
  const proposal = changes.length === 0 ? undefined : yield* proposeProject(target, { title: `Write the ${composed.tier} brief (${composed.tokens} of ${composed.budget} tokens) and ${INDEX_PATH}`, recipe: "brief", changeClass: "mechanical", changes })
  return { bundle: target.name, tier: composed.tier, budget: composed.budget, tokens: composed.tokens, ...counts(composed), files, warnings: composed.warnings, ...(proposal === undefined ? {} : { proposal }) } satisfies BriefWrite as BriefWrite
})

export interface BriefProblem {
  readonly path: string
  readonly message: string
}

export interface BriefCheck {
  readonly bundle: string
  readonly tier: string
  readonly budget: number
  readonly tokens: number
  readonly problems: ReadonlyArray<BriefProblem>
  readonly ok: boolean
}

const fromDrift = (d: IndexDrift): BriefProblem => ({ path: d.path, message: `${INDEX_PATH}: ${d.ref === "" ? "" : `${d.ref}: `}${d.message}` })

/**
 * The brief's drift checker (R-BRF-3/4, R-CHK-1): BRIEF.md differs from a
 * fresh render, index.json is missing or malformed, an entry's path is gone,
 * an artifact was added or removed, or a briefed item changed.
 */
export const checkBrief = (target: ProjectTarget, input: BriefInput = {}) =>
  Effect.gen(function* () {
    const problems: Array<BriefProblem> = []
    const indexText = yield* Effect.orElseSucceed(readOptional(target, INDEX_PATH), () => undefined)
    const written = indexText === undefined ? undefined : parseIndex(indexText)
    if (indexText === undefined) problems.push({ path: INDEX_PATH, message: "missing: run akm brief write" })
    else if (written !== undefined && Either.isLeft(written)) problems.push({ path: INDEX_PATH, message: `malformed (${written.left}): run akm brief write` })
    const recorded = written !== undefined && Either.isRight(written) ? written.right : undefined
    const fresh = yield* compose(target, input, recorded === undefined ? undefined : { tier: recorded.tier, budget: recorded.budget })
    const brief = yield* Effect.orElseSucceed(readOptional(target, BRIEF_PATH), () => undefined)
    if (brief === undefined) problems.push({ path: BRIEF_PATH, message: "missing: run akm brief write" })
    else if (brief !== fresh.brief) {
      const sections = driftedSections(brief, fresh.brief)
      problems.push({ path: BRIEF_PATH, message: `differs from a fresh render${sections.length === 0 ? "" : ` in ${sections.map((s) => `"${s}"`).join(", ")}`}: run akm brief write` })
      // Name the briefed items whose text in the brief is no longer what their file says.
      for (const item of fresh.items) {
        const at = fresh.allocation.placed.get(keyOf(item))
        const shown = at === "content" ? item.content.trimEnd() : at === "pointer" ? item.pointer : undefined
        if (shown !== undefined && !brief.includes(shown)) problems.push({ path: item.path, message: `briefed item changed since the brief was written${item.ref === "" ? "" : ` (${item.ref})`}` })
      }
    }
    if (recorded !== undefined) {
      for (const entry of recorded.items) {
        const exists = yield* Effect.orElseSucceed(Effect.map(readOptional(target, entry.path), (t) => t !== undefined), () => false)
        if (!exists) problems.push({ path: entry.path, message: `${INDEX_PATH} points at a file that does not exist` })
      }
      const normal = renderIndex(recorded)
      if (normal !== indexText) problems.push({ path: INDEX_PATH, message: "was edited by hand (it is generated): run akm brief write" })
      problems.push(...indexDrift(recorded, fresh.index).map(fromDrift))
    }
    const seen = new Set<string>()
    const unique = problems.filter((p) => (seen.has(`${p.path}\n${p.message}`) ? false : (seen.add(`${p.path}\n${p.message}`), true)))
    return { bundle: target.name, tier: fresh.tier, budget: fresh.budget, tokens: fresh.tokens, problems: unique, ok: unique.length === 0 } satisfies BriefCheck as BriefCheck
  })

/** `akm brief check`: exits 1 naming what is stale. */
export const briefCheck = Effect.fn("brief.check")(function* (input: BriefInput = {}) {
  return yield* checkBrief(yield* resolveProjectBundle(input), input)
})

export interface ExplainedItem {
  readonly section: string
  readonly title: string
  readonly path: string
  readonly ref: string
  readonly score: number
  readonly tokens: number
  readonly placement: "content" | "pointer" | "more"
  readonly why: string
}

export interface BriefExplain {
  readonly bundle: string
  readonly tier: string
  readonly budget: number
  readonly tokens: number
  readonly items: ReadonlyArray<ExplainedItem>
}

/** `akm brief explain`: why each item is in or out (value, tokens, section). */
export const briefExplain = Effect.fn("brief.explain")(function* (input: BriefInput = {}) {
  const target = yield* resolveProjectBundle(input)
  const c = yield* compose(target, input)
  const order = new Map(SECTIONS.map((s, i) => [s.id as string, i]))
  const items = c.items
    .map((i) => ({ section: SECTIONS.find((s) => s.id === i.section)!.heading, title: i.title, path: i.path, ref: i.ref, score: i.score, tokens: i.tokens, placement: c.allocation.placed.get(keyOf(i)) ?? "more", why: c.allocation.reasons.get(keyOf(i)) ?? "", rank: order.get(i.section) ?? 0 }))
    .sort((a, b) => a.rank - b.rank || b.score - a.score || (a.path < b.path ? -1 : a.path > b.path ? 1 : 0))
    .map(({ rank: _rank, ...rest }) => rest)
  return { bundle: target.name, tier: c.tier, budget: c.budget, tokens: c.tokens, items } satisfies BriefExplain as BriefExplain
})
