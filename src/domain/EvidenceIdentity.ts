import { sha256Hex } from "./Digest.js"
import type { EvidenceInput } from "./Evidence.js"

/**
 * What makes two evidence rows the same observation (spec 06 §1, R-IMP-2):
 * the content hash (kind, ref, note, query, origin — the fingerprint input of
 * R-IMP-3) and the independence key. Pure, so a dry run can name the rows a
 * collection would store without storing them.
 */
export const evidenceHash = (input: Pick<EvidenceInput, "kind" | "ref" | "note" | "query" | "origin">): string =>
  sha256Hex(JSON.stringify([input.kind, input.ref ?? null, input.note, input.query ?? null, input.origin ?? null]))

/** The row id: 16 hex digits of the hash and the independence key ("" when the key defaults to the id). */
export const evidenceId = (hash: string, independenceKey: string | undefined): string => sha256Hex([hash, "\n", independenceKey ?? ""]).slice(0, 16)

/** The bundle of a stored ref (`bundle//id`); undefined for evidence without a ref. */
export const evidenceBundle = (ref: string | undefined): string | undefined => {
  if (ref === undefined) return undefined
  const at = ref.indexOf("//")
  return at <= 0 ? undefined : ref.slice(0, at)
}
