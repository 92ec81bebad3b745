import { Effect, Either } from "effect"
import type { ItemPlan, Projection, ValidateContext } from "../../../domain/Adapter.js"
import type { Diagnostic } from "../../../domain/Diagnostic.js"
import { findSection, parse as parseRef } from "../../../domain/Ref.js"
import { parseFrontmatter } from "../core/Frontmatter.js"
import type { RuleBook } from "../core/RuleBook.js"
import { expandShortRef } from "./refs.js"

type Items = ReadonlyArray<{ readonly plan: ItemPlan; readonly projection: Projection }>

/** The concept id a ref names in this bundle, as written or expanded from `<type>/<name>`. */
const findTarget = (conceptId: string, known: ReadonlyMap<string, Projection>): string | undefined =>
  known.has(conceptId) ? conceptId : known.has(expandShortRef(conceptId)) ? expandShortRef(conceptId) : undefined

/** Why a ref from this bundle does not resolve, or undefined when it does (or points at another bundle). */
const refProblem = (ref: string, bundle: string, known: ReadonlyMap<string, Projection>): string | undefined => {
  const parsed = parseRef(ref)
  if (Either.isLeft(parsed)) return `'${ref}' is not a ref: ${parsed.left.reason}`
  const { bundle: other, conceptId, fragment } = parsed.right
  if (other !== undefined && other !== bundle) return undefined
  const target = findTarget(conceptId, known)
  if (target === undefined) return `'${ref}' names no item of this bundle`
  if (fragment !== undefined && fragment !== "" && findSection((known.get(target)?.outline ?? []).map((h) => ({ ...h, line: 0 })), fragment) === undefined) {
    return `'${ref}': ${target} has no section #${fragment}`
  }
  return undefined
}

/** `broken-ref` for `xrefs` and `supersededBy` entries that name nothing (R-REF-3: short refs mean this bundle). */
export const lintAkm = (ctx: ValidateContext, items: Items, book: RuleBook): Effect.Effect<ReadonlyArray<Diagnostic>> =>
  Effect.gen(function* () {
    const known = new Map(items.map((item) => [item.plan.conceptId, item.projection]))
    const out: Array<Diagnostic> = []
    for (const { plan, projection } of items) {
      const xrefs = (projection.extra as { xrefs?: ReadonlyArray<string> } | undefined)?.xrefs ?? []
      const refs: ReadonlyArray<readonly [string, string]> = [
        ...xrefs.map((ref) => ["xrefs", ref] as const),
        ...(projection.supersededBy === undefined ? [] : [["supersededBy", projection.supersededBy] as const])
      ]
      const problems = refs.flatMap(([key, ref]) => {
        const problem = refProblem(ref, ctx.bundle.name, known)
        return problem === undefined ? [] : [[key, problem] as const]
      })
      if (problems.length === 0) continue
      const path = plan.files[0]!
      const keyLines = parseFrontmatter(yield* Effect.orElseSucceed(ctx.readText(path), () => "")).keyLines
      for (const [key, problem] of problems) out.push(...book.report("broken-ref", path, `\`${key}\` ${problem}`, { line: keyLines[key] }))
    }
    return out
  })
