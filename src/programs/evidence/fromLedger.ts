import { Effect } from "effect"
import type { EvidenceInput } from "../../domain/Evidence.js"
import { fieldText, type LedgerRecord } from "../../domain/ledger/index.js"
import { WorkspaceConfig } from "../../services/WorkspaceConfig.js"
import { resolveBundle } from "../scan.js"
import { loadLedger } from "../ledger/store.js"

/** A failure is recurring once it was seen on two independent occasions (spec 06 §1). */
export const RECURRENCE_THRESHOLD = 2

/**
 * Ledger recurrences as `recurring-failure` evidence: one row per independent
 * sighting (a distinct date and source: R-IMP-2), about the record's ref, for
 * failures sighted independently at least twice. The symptom is the query a
 * learned item must answer.
 */
export const ledgerEvidence = (bundle: string, path: string, record: LedgerRecord): ReadonlyArray<EvidenceInput> => {
  if (record.kind !== "failure") return []
  const sightings = [...new Map(record.occurrences.map((o) => [`${o.date}/${o.source}`, o] as const)).values()]
  if (sightings.length < RECURRENCE_THRESHOLD) return []
  const symptom = fieldText(record, "symptom")
  const fix = fieldText(record, "fix")
  const note = [record.title, ...(symptom === undefined ? [] : [`symptom: ${symptom}`]), ...(fix === undefined ? [] : [`fix: ${fix}`])].join("\n")
  return sightings.map((o) => ({
    kind: "recurring-failure",
    source: "ledger",
    ref: `${bundle}//${path.replace(/\.md$/, "")}`,
    note,
    query: record.title,
    independenceKey: `ledger/${o.date}/${o.source}`,
    origin: path,
    observedAt: o.date
  }))
}

/** Every project bundle (or the one named) and its ledger's recurring failures. */
export const evidenceFromLedger = (only: string | undefined) =>
  Effect.gen(function* () {
    const config = yield* (yield* WorkspaceConfig).read
    const out: Array<EvidenceInput> = []
    for (const name of Object.keys(config.bundles)) {
      if (only !== undefined && name !== only) continue
      // A bundle that cannot be resolved is not a project this collection can read; lint reports it.
      const resolved = yield* Effect.option(resolveBundle(name))
      if (resolved._tag === "None" || resolved.value.adapter.id !== "project") continue
      const loaded = yield* loadLedger(resolved.value.info.root, ["failure"])
      for (const l of loaded) if (l._tag === "Ok") out.push(...ledgerEvidence(name, l.file.path, l.record))
    }
    return out as ReadonlyArray<EvidenceInput>
  })
