import { Effect, Either } from "effect"
import type { LintItem, ValidateContext } from "../../../domain/Adapter.js"
import type { Diagnostic } from "../../../domain/Diagnostic.js"
import { sliceEnds, yieldIfSpent } from "../../../domain/EventLoopSlice.js"
import { findSection, normalize as normalizeRef, parse as parseRef } from "../../../domain/Ref.js"
import { frontmatterKeyLines } from "../core/Frontmatter.js"
import type { RuleBook } from "../core/RuleBook.js"
import { projectAkm } from "./project.js"
import { expandShortRef } from "./refs.js"

type Items = ReadonlyArray<LintItem>

/** The concept id a ref names in this bundle, as written or expanded from `<type>/<name>`. */
const findTarget = (conceptId: string, known: ReadonlyMap<string, LintItem>): string | undefined =>
  known.has(conceptId) ? conceptId : known.has(expandShortRef(conceptId)) ? expandShortRef(conceptId) : undefined

/**
 * A target's headings, from projecting it again: whole-bundle rules do not
 * get outlines (spec 10 §2 memory bound), and a ref with a fragment is rare.
 */
const outlineOf = (item: LintItem, ctx: ValidateContext, book: RuleBook): Effect.Effect<ReadonlyArray<{ readonly depth: number; readonly text: string; readonly slug: string }>> =>
  Effect.suspend(() => projectAkm(item.plan, ctx, book)).pipe(
    Effect.map((result) => result.projection.outline ?? []),
    Effect.orElseSucceed(() => []),
    Effect.catchAllDefect(() => Effect.succeed([]))
  )

/** A ref's fragment that its target's headings do not hold, or undefined when they do. */
const sectionProblem = (ref: string, { target, fragment }: SectionRef, outline: (target: string) => Effect.Effect<ReadonlyArray<{ readonly depth: number; readonly text: string; readonly slug: string }>>) =>
  Effect.map(outline(target), (headings) =>
    findSection(headings.map((h) => ({ ...h, line: 0 })), fragment) === undefined ? `'${ref}': ${target} has no section #${fragment}` : undefined)

/** A resolved ref whose fragment its target's headings must hold. */
interface SectionRef {
  readonly target: string
  readonly fragment: string
}

/**
 * Why a ref from this bundle does not resolve, undefined when it does (or
 * points at another bundle), or the section it names, which only the
 * target's headings can confirm. Synchronous: a whole bundle's 20,000 items
 * are checked without an Effect per ref (decision 0058).
 */
const refProblem = (ref: string, bundle: string, known: ReadonlyMap<string, LintItem>): string | undefined | SectionRef => {
  const parsed = parseRef(ref)
  if (Either.isLeft(parsed)) return `'${ref}' is not a ref: ${parsed.left.reason}`
  const { bundle: other, conceptId, fragment } = parsed.right
  if (other !== undefined && other !== bundle) return undefined
  const target = findTarget(conceptId, known)
  if (target === undefined) return `'${ref}' names no item of this bundle`
  return fragment !== undefined && fragment !== "" ? { target, fragment } : undefined
}

/**
 * Key lines of a file's frontmatter, by its text: a write runs the bundle
 * rules on the tree before and after, in the evaluation and again in the
 * engine, then the index refresh runs them once more, each reading the same
 * files with broken refs. Bounded: cleared when it holds 4,096 texts.
 */
const keyLinesByText = new Map<string, Readonly<Record<string, number>>>()

const keyLinesOf = (text: string): Readonly<Record<string, number>> => {
  let lines = keyLinesByText.get(text)
  if (lines === undefined) {
    if (keyLinesByText.size >= 4096) keyLinesByText.clear()
    lines = frontmatterKeyLines(text)
    keyLinesByText.set(text, lines)
  }
  return lines
}

/** An item's `xrefs` entries (none for most items). */
const xrefsOf = ({ projection }: LintItem): ReadonlyArray<string> => (projection.extra as { xrefs?: ReadonlyArray<string> } | undefined)?.xrefs ?? []

/** Whether an item has any ref: passes over every item of a bundle build no list for the many that have none. */
const hasRefs = (item: LintItem): boolean => item.projection.supersededBy !== undefined || xrefsOf(item).length > 0

const NO_REFS: ReadonlyArray<readonly [string, string]> = []

/** An item's refs by the frontmatter key that holds them. */
const refsOf = (item: LintItem): ReadonlyArray<readonly [string, string]> => {
  const { projection } = item
  const xrefs = xrefsOf(item)
  // Most items name nothing: no arrays are made for them.
  if (xrefs.length === 0 && projection.supersededBy === undefined) return NO_REFS
  return [
    ...xrefs.map((ref) => ["xrefs", ref] as const),
    ...(projection.supersededBy === undefined ? [] : [["supersededBy", projection.supersededBy] as const])
  ]
}

/** `broken-ref` for `xrefs` and `supersededBy` entries that name nothing (R-REF-3: short refs mean this bundle). */
export const lintAkm = (ctx: ValidateContext, items: Items, book: RuleBook): Effect.Effect<ReadonlyArray<Diagnostic>> => lintSubjects(ctx, items, items, book)

/**
 * lintAkm's findings about the changed items and the items whose refs name
 * one (BundleAdapter.lintChanged): an item's findings depend only on its own
 * refs, which concept ids exist and its targets' headings. Whether a ref
 * names a changed id is decided on the parsed ref, after a cheap test that
 * its text holds the id's last segment (every form of a ref to an id does).
 */
export const lintAkmChanged = (ctx: ValidateContext, items: Items, changed: ReadonlySet<string>, book: RuleBook): Effect.Effect<ReadonlyArray<Diagnostic>> =>
  Effect.gen(function* () {
    const names = [...changed].map((id) => id.slice(id.lastIndexOf("/") + 1))
    const namesChanged = (ref: string): boolean => {
      const text = normalizeRef(ref)
      if (!names.some((name) => text.includes(name))) return false
      const parsed = parseRef(text)
      if (Either.isLeft(parsed)) return false
      const { bundle: other, conceptId } = parsed.right
      return (other === undefined || other === ctx.bundle.name) && (changed.has(conceptId) || changed.has(expandShortRef(conceptId)))
    }
    // A pass over every item of the bundle: the event loop turns between slices (decision 0053).
    const subjects: Array<LintItem> = []
    for (let i = 0; i < items.length; i++) {
      if (sliceEnds(i)) yield* yieldIfSpent
      const item = items[i]!
      if (changed.has(item.plan.conceptId) || (hasRefs(item) && refsOf(item).some(([, ref]) => namesChanged(ref)))) subjects.push(item)
    }
    return yield* lintSubjects(ctx, items, subjects, book)
  })

/** The findings about `subjects`, with every item of `items` known. */
const lintSubjects = (ctx: ValidateContext, items: Items, subjects: Items, book: RuleBook): Effect.Effect<ReadonlyArray<Diagnostic>> =>
  Effect.gen(function* () {
    // Every item by concept id, built in slices when a subject first has a ref to resolve (a write's subjects often have none).
    let knownIds: ReadonlyMap<string, LintItem> | undefined
    const buildKnown = Effect.gen(function* () {
      const map = new Map<string, LintItem>()
      for (let i = 0; i < items.length; i++) {
        if (sliceEnds(i, 1024)) yield* yieldIfSpent
        map.set(items[i]!.plan.conceptId, items[i]!)
      }
      return map
    })
    const outlines = new Map<string, ReadonlyArray<{ readonly depth: number; readonly text: string; readonly slug: string }>>()
    const outline = (target: string) =>
      Effect.gen(function* () {
        const cached = outlines.get(target)
        if (cached !== undefined) return cached
        const headings = yield* outlineOf(knownIds!.get(target)!, ctx, book)
        outlines.set(target, headings)
        return headings
      })
    const out: Array<Diagnostic> = []
    for (let i = 0; i < subjects.length; i++) {
      if (sliceEnds(i)) yield* yieldIfSpent
      const item = subjects[i]!
      const { plan, projection } = item
      if (!hasRefs(item)) continue
      const refs = refsOf(item)
      const problems: Array<readonly [string, string]> = []
      for (const [key, ref] of refs) {
        knownIds ??= yield* buildKnown
        const found = refProblem(ref, ctx.bundle.name, knownIds)
        const problem = found === undefined || typeof found === "string" ? found : yield* sectionProblem(ref, found, outline)
        if (problem !== undefined) problems.push([key, problem])
      }
      if (problems.length === 0) continue
      const path = plan.files[0]!
      // Kept in the lint projection when the item was projected by this akm (project.ts); an older index reads the file.
      const keyLines = projection.keyLines ?? keyLinesOf(yield* Effect.orElseSucceed(ctx.readText(path), () => ""))
      for (const [key, problem] of problems) out.push(...book.report("broken-ref", path, `\`${key}\` ${problem}`, { line: keyLines[key] }))
    }
    return out
  })
