import { Effect } from "effect"
import type { EvidenceInput } from "../../domain/Evidence.js"
import { Redactor } from "../../services/Redactor.js"
import { MAX_STORED_QUERY } from "../../services/UsageLog.js"

/** A note keeps at most this many characters after redaction (a transcript turn can be long). */
export const MAX_NOTE = 2000

const cap = (text: string, max: number): string => (text.length <= max ? text : `${text.slice(0, max - 1)}…`)

/**
 * Every evidence text is free text from a person, an agent or a file: it is
 * stored only redacted (R-RED-1), and redacted before it is capped, so a
 * secret cut in half by the cap is still recognised.
 */
export const redactInputs = (inputs: ReadonlyArray<EvidenceInput>) =>
  Effect.gen(function* () {
    const redact = yield* (yield* Redactor).snapshot
    const clean = (text: string, max: number): string => cap(redact(text), max)
    return inputs.map((input): EvidenceInput => ({
      ...input,
      note: clean(input.note, MAX_NOTE),
      ...(input.query === undefined ? {} : { query: clean(input.query, MAX_STORED_QUERY) })
    }))
  })
