import { Effect } from "effect"
import { UsageError } from "../../domain/Errors.js"
import { EVIDENCE_KINDS, isEvidenceKind, type Evidence } from "../../domain/Evidence.js"
import { toStored } from "../../domain/Ref.js"
import { EvidenceStore } from "../../services/EvidenceStore.js"
import { resolveTarget } from "../show.js"
import { redactInputs } from "./redactInputs.js"

export interface AddEvidenceInput {
  readonly kind: string
  /** Resolved like `akm show` (short refs allowed); optional for evidence that asks for a new item. */
  readonly ref?: string | undefined
  readonly note: string
  readonly query?: string | undefined
  /** Observations sharing it count once (R-IMP-2); default: the row itself. */
  readonly independenceKey?: string | undefined
}

/** `akm evidence add`: one manual row, redacted, stored once however often it is added. */
export const addEvidence = Effect.fn("evidence.add")(function* (input: AddEvidenceInput) {
  const kind = input.kind.trim()
  if (!isEvidenceKind(kind)) return yield* new UsageError({ message: `unknown evidence kind '${kind}'`, hint: `use one of: ${EVIDENCE_KINDS.join(", ")}` })
  const note = input.note.trim()
  if (note === "") return yield* new UsageError({ message: "evidence needs a note", hint: "say what was observed, e.g. --note \"step 3 fails on macOS\"" })
  const query = input.query?.trim()
  const target = input.ref === undefined ? undefined : yield* resolveTarget(input.ref)
  const ref = target === undefined ? undefined : target.resourceOf ?? toStored(target.ref)
  const [clean] = yield* redactInputs([{
    kind,
    source: "manual",
    ...(ref === undefined ? {} : { ref }),
    note,
    ...(query === undefined || query === "" ? {} : { query }),
    ...(input.independenceKey === undefined ? {} : { independenceKey: input.independenceKey })
  }])
  const [stored] = yield* (yield* EvidenceStore).add([clean!])
  return stored as Evidence
})
