import { Either } from "effect"
import { parse as parseRef } from "../../../domain/Ref.js"
import { directoryOf, typeNamed } from "./types.js"

/**
 * Refs written in akm frontmatter (`xrefs`, `supersededBy`): a concept id of
 * this bundle (`memories/x`), a short `<type>/<name>` (`memory/x`), or
 * `bundle//id` for another bundle (R-REF-3: short refs mean this bundle).
 */

/** `memory/x` → `memories/x`; ids already naming a directory are unchanged. */
export const expandShortRef = (conceptId: string): string => {
  const slash = conceptId.indexOf("/")
  if (slash === -1) return conceptId
  const type = typeNamed(conceptId.slice(0, slash))
  return type === undefined ? conceptId : `${directoryOf(type)}/${conceptId.slice(slash + 1)}`
}

/** The link a ref makes: this bundle's concept id, or `bundle//id` for another bundle; undefined when it is not a ref. */
export const linkOfRef = (ref: string, bundle: string): string | undefined => {
  const parsed = parseRef(ref)
  if (Either.isLeft(parsed)) return undefined
  const { bundle: other, conceptId } = parsed.right
  return other !== undefined && other !== bundle ? `${other}//${conceptId}` : expandShortRef(conceptId)
}
