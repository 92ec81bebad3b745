import { Effect } from "effect"
import { redactFields } from "../domain/Redaction.js"
import { Redactor } from "../services/Redactor.js"
import { StateStore } from "../services/StateStore.js"

/**
 * Appends a workspace event with its subject and every string of its data
 * redacted first (R-RED-1): a bundle's source locator may carry credentials,
 * a failure reason may quote a file. StateStore.appendEvent takes only
 * Redacted text, so this is the way programs record events.
 */
export const recordEvent = (kind: string, subject: string, data?: Readonly<Record<string, unknown>>) =>
  Effect.gen(function* () {
    const redact = yield* (yield* Redactor).snapshot
    return yield* (yield* StateStore).appendEvent(kind, redact(subject), data === undefined ? undefined : redactFields(data, redact))
  })
