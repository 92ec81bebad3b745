import { Effect } from "effect"
import { NotFound, UsageError } from "../../domain/Errors.js"
import type { Evidence } from "../../domain/Evidence.js"
import { EvidenceStore } from "../../services/EvidenceStore.js"

/** Shortest id prefix a user may type. */
const MIN_PREFIX = 4

/** A row by its id or a unique prefix of it (as `akm evidence list` prints it). */
export const findEvidence = Effect.fn("evidence.find")(function* (id: string) {
  const store = yield* EvidenceStore
  const wanted = id.trim().toLowerCase()
  if (wanted.length < MIN_PREFIX) return yield* new UsageError({ message: `evidence id '${id}' is too short`, hint: `give at least ${MIN_PREFIX} characters of an id from \`akm evidence list\`` })
  const ids = yield* store.idsStartingWith(wanted, 2)
  if (ids.length === 0) return yield* new NotFound({ what: "evidence", name: id, message: `no evidence with id '${id}'`, hint: "list the ids with `akm evidence list`" })
  if (ids.length > 1) return yield* new UsageError({ message: `evidence id '${id}' is ambiguous (${ids.join(", ")} …)`, hint: "give more characters of the id" })
  const [row] = yield* store.get(ids)
  return row as Evidence
})

/** `akm evidence dismiss <id>`: the row stays (counts and history) but no improve run uses it again. */
export const dismissEvidence = Effect.fn("evidence.dismiss")(function* (id: string) {
  const row = yield* findEvidence(id)
  yield* (yield* EvidenceStore).mark([row.id], "dismissed")
  return { ...row, status: "dismissed" } satisfies Evidence as Evidence
})
