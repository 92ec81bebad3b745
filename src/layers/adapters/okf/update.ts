import { Either } from "effect"
import { AuthoringRefused } from "../../../domain/Adapter.js"
import { editFrontmatter } from "../core/FrontmatterEdit.js"

/** Top-level frontmatter changes: a value sets the key, `undefined` removes it. */
export type ConceptChanges = Readonly<Record<string, unknown>>

const isAkmKey = (key: string): boolean => key === "akm" || key.startsWith("akm:")

/**
 * Changes top-level frontmatter keys of an OKF concept in place (spec 03
 * "okf": unknown keys and key order are preserved on update). The edit is the
 * core source-preserving `editFrontmatter`: only the changed keys' text moves.
 * Refuses what would make the concept nonconformant or akm-specific.
 */
export const updateConcept = (text: string, changes: ConceptChanges): Either.Either<string, AuthoringRefused> => {
  const forbidden = Object.keys(changes).filter(isAkmKey)
  if (forbidden.length > 0) return Either.left(new AuthoringRefused(`akm does not write its own keys into OKF concepts (${forbidden.join(", ")})`, "keep akm bookkeeping out of the concept's frontmatter"))
  if (Object.hasOwn(changes, "type") && (typeof changes.type !== "string" || changes.type.trim() === "")) {
    return Either.left(new AuthoringRefused("`type` must stay a non-empty string (OKF §4.1)", "give the concept a descriptive type such as Reference or Metric"))
  }
  return Either.try({
    try: () => editFrontmatter(text, (editor) => {
      for (const [key, value] of Object.entries(changes)) editor.set(key, value)
    }),
    catch: (error) => new AuthoringRefused(`cannot edit the concept's frontmatter: ${(error as Error).message.split("\n")[0]}`, "fix the frontmatter first (akm lint shows where)")
  })
}
