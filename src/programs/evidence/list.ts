import { Effect } from "effect"
import type { Evidence, EvidenceFilter } from "../../domain/Evidence.js"
import { toStored } from "../../domain/Ref.js"
import { EvidenceStore } from "../../services/EvidenceStore.js"
import { resolveTarget } from "../show.js"
import { missingRefs } from "./refState.js"

/** A row as `akm evidence list` shows it. */
export interface EvidenceListRow extends Evidence {
  /** Why the ref no longer names an item; absent when it does (or the row has no ref). */
  readonly missing?: string | undefined
}

export interface EvidenceList {
  readonly rows: ReadonlyArray<EvidenceListRow>
  /** Distinct independence keys among the rows (R-IMP-2). */
  readonly independent: number
}

/** `akm evidence list`: stored rows, newest first, each flagged when its ref no longer exists. */
export const listEvidence = Effect.fn("evidence.list")(function* (filter: EvidenceFilter) {
  const store = yield* EvidenceStore
  // A short ref resolves like `akm show`; one that resolves to nothing (its item is gone) is matched as typed.
  const ref = filter.ref === undefined || filter.ref.includes("//")
    ? filter.ref
    : yield* Effect.orElseSucceed(Effect.map(resolveTarget(filter.ref), (t) => t.resourceOf ?? toStored(t.ref)), () => filter.ref)
  const rows = yield* store.list({ ...filter, ref, limit: filter.limit ?? 100 })
  const missing = yield* missingRefs(rows.flatMap((row) => (row.ref === undefined ? [] : [row.ref])))
  return {
    rows: rows.map((row) => {
      const reason = row.ref === undefined ? undefined : missing.get(row.ref)
      return reason === undefined ? row : { ...row, missing: reason }
    }),
    independent: store.independentCount(rows)
  } satisfies EvidenceList as EvidenceList
})
