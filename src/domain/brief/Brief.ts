import type { ItemKind } from "./Value.js"

/**
 * The token-capped brief (spec 08 §6, R-BRF-1/2): fixed sections with
 * allowances, items allocated in two passes by value per token, whatever
 * does not fit demoted to a one-line pointer, and pointers that do not fit
 * summed up in one "…and N more" line. Pure: token counts come in with the
 * items; the program counts the rendered text exactly and tightens the budget
 * until it fits.
 */

export const BRIEF_PATH = ".ai/BRIEF.md"
export const INDEX_PATH = ".ai/index.json"

export const TIERS = { lean: 4_000, standard: 12_000, deep: 25_000 } as const
export type Tier = keyof typeof TIERS

/** The smallest budget that holds the fixed sections' headings and one pointer each (issue 22 §6). */
export const MIN_BUDGET = 1_000

export const SECTIONS = [
  { id: "identity", heading: "What this system is", allowance: 600 },
  { id: "constraints", heading: "Constraints that must not break", allowance: 2_500 },
  { id: "failures", heading: "Recurring failures and their fixes", allowance: 3_000 },
  { id: "business", heading: "Business rules with numbers", allowance: 2_000 },
  { id: "questions", heading: "Open questions blocking work", allowance: 1_000 },
  { id: "map", heading: "Where to look for what", allowance: 1_400 },
  { id: "pointers", heading: "Pointers into the corpus", allowance: 1_500 }
] as const

export type SectionId = (typeof SECTIONS)[number]["id"]

/** Allowances are stated for the standard tier; other budgets scale them. */
export const allowanceOf = (section: SectionId, budget: number): number =>
  Math.floor((SECTIONS.find((s) => s.id === section)!.allowance * budget) / TIERS.standard)

export interface BriefItem {
  /** Stable key: path, plus ref when one file holds several items. */
  readonly path: string
  readonly ref: string
  readonly title: string
  readonly kind: ItemKind
  /** The section the item competes in; "pointers" items only ever appear as pointers. */
  readonly section: SectionId
  readonly score: number
  readonly tags: ReadonlyArray<string>
  /** Markdown shown when the item is in the brief as content. */
  readonly content: string
  /** The one line shown when it is demoted. */
  readonly pointer: string
  /** Tokens of `content` (what index.json reports) and of `pointer` plus its newline. */
  readonly tokens: number
  readonly pointerTokens: number
}

export type Placement = "content" | "pointer" | "more"

export interface Allocation {
  /** Item key → where it landed. */
  readonly placed: ReadonlyMap<string, Placement>
  /** Why, per item (for `brief explain`). */
  readonly reasons: ReadonlyMap<string, string>
}

export const keyOf = (item: Pick<BriefItem, "path" | "ref">): string => `${item.path}#${item.ref}`

/** Value per token, the order items compete in; ties broken by path and ref so allocation is deterministic. */
const byValuePerToken = (a: BriefItem, b: BriefItem): number =>
  b.score / Math.max(1, b.tokens) - a.score / Math.max(1, a.tokens) || (a.path < b.path ? -1 : a.path > b.path ? 1 : a.ref < b.ref ? -1 : a.ref > b.ref ? 1 : 0)

const byScore = (a: BriefItem, b: BriefItem): number => b.score - a.score || (a.path < b.path ? -1 : a.path > b.path ? 1 : a.ref < b.ref ? -1 : a.ref > b.ref ? 1 : 0)

/**
 * Two-pass allocation. `room` is the budget left for items once the fixed
 * text (title, headings, the "…and N more" line) is paid for.
 * Pass 1: each content section fills its allowance by value per token.
 * Pass 2: the allowance left unused anywhere is shared by every item still
 * out, by value per token, keeping the pointers section's allowance free.
 * Then every item not placed becomes a pointer, highest value first, while
 * the room lasts; the rest are counted in the "…and N more" line.
 */
export const allocate = (items: ReadonlyArray<BriefItem>, budget: number, room: number): Allocation => {
  const placed = new Map<string, Placement>()
  const reasons = new Map<string, string>()
  let used = 0
  const vpt = (i: BriefItem) => (i.score / Math.max(1, i.tokens)).toFixed(3)
  for (const section of SECTIONS) {
    if (section.id === "pointers") continue
    const allowance = allowanceOf(section.id, budget)
    let left = allowance
    for (const item of items.filter((i) => i.section === section.id).sort(byValuePerToken)) {
      if (item.tokens <= left && used + item.tokens <= room) {
        left -= item.tokens
        used += item.tokens
        placed.set(keyOf(item), "content")
        reasons.set(keyOf(item), `in as content: fits the section's ${allowance}-token allowance (value ${item.score}, ${item.tokens} tokens, ${vpt(item)} per token)`)
      }
    }
  }
  const pointerReserve = allowanceOf("pointers", budget)
  for (const item of items.filter((i) => i.section !== "pointers" && !placed.has(keyOf(i))).sort(byValuePerToken)) {
    if (used + item.tokens + pointerReserve <= room) {
      used += item.tokens
      placed.set(keyOf(item), "content")
      reasons.set(keyOf(item), `in as content: over its section's allowance, placed from unused allowance elsewhere (value ${item.score}, ${item.tokens} tokens, ${vpt(item)} per token)`)
    }
  }
  for (const item of items.filter((i) => !placed.has(keyOf(i))).sort(byScore)) {
    const why = item.section === "pointers" ? "listed as a pointer (corpus item)" : `demoted to a pointer: ${item.tokens} tokens did not fit`
    if (used + item.pointerTokens <= room) {
      used += item.pointerTokens
      placed.set(keyOf(item), "pointer")
      reasons.set(keyOf(item), `${why} (value ${item.score})`)
    } else {
      placed.set(keyOf(item), "more")
      reasons.set(keyOf(item), `out: counted in the "…and N more" line; no room for its pointer (value ${item.score}); find it in ${INDEX_PATH}`)
    }
  }
  return { placed, reasons }
}

export const moreLine = (n: number): string => `…and ${n} more in ${INDEX_PATH}`

/** The brief's text for an allocation. No clock, no machine-specific text: two checkouts render the same bytes. */
export const renderBrief = (input: { readonly name: string; readonly tier: string; readonly budget: number; readonly items: ReadonlyArray<BriefItem>; readonly allocation: Allocation }): string => {
  const { items, allocation } = input
  const at = (i: BriefItem) => allocation.placed.get(keyOf(i))
  const out: Array<string> = [
    `<!-- Generated by akm brief write (${input.tier}, ${input.budget} tokens): do not edit; run \`akm brief write\`. Everything else: ${INDEX_PATH}. -->`,
    "",
    `# Brief: ${input.name}`,
    ""
  ]
  for (const section of SECTIONS) {
    out.push(`## ${section.heading}`, "")
    if (section.id === "pointers") {
      const pointers = items.filter((i) => at(i) === "pointer").sort(byScore)
      const more = items.filter((i) => at(i) === "more").length
      for (const p of pointers) out.push(p.pointer)
      if (more > 0) out.push(moreLine(more))
      if (pointers.length === 0 && more === 0) out.push("(nothing left out)")
      out.push("")
      continue
    }
    const content = items.filter((i) => i.section === section.id && at(i) === "content").sort(byScore)
    for (const c of content) out.push(c.content.trimEnd(), "")
    if (content.length === 0) out.push(items.some((i) => i.section === section.id) ? "(see the pointers below)" : "(none)", "")
  }
  return `${out.join("\n").trimEnd()}\n`
}

/** The fixed text every brief pays for, whatever its items: used to size the room. */
export const fixedText = (name: string, tier: string, budget: number, itemCount: number): string =>
  renderBrief({ name, tier, budget, items: [], allocation: { placed: new Map(), reasons: new Map() } }) + `${moreLine(itemCount)}\n`
