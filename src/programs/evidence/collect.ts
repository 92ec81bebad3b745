import { Clock, Effect, Either } from "effect"
import type { Evidence, EvidenceInput } from "../../domain/Evidence.js"
import { evidenceBundle, evidenceHash, evidenceId } from "../../domain/EvidenceIdentity.js"
import { EvidenceStore } from "../../services/EvidenceStore.js"
import { evidenceFromFeedback } from "./fromFeedback.js"
import { evidenceFromLedger } from "./fromLedger.js"
import { evidenceFromLint } from "./fromLint.js"
import { evidenceFromUsage } from "./fromUsage.js"
import { redactInputs } from "./redactInputs.js"

export interface CollectOptions {
  /** Only this bundle's evidence (lint and the ledger read only it). */
  readonly bundle?: string | undefined
  /** Only this ref's evidence (a stored ref, `bundle//id`); its bundle is the one linted. */
  readonly ref?: string | undefined
  /** Derive and return, store nothing (R-IMP-6): rows not stored yet come back with status open and are not persisted. */
  readonly dryRun?: boolean | undefined
}

export interface CollectReport {
  /** The open rows for the options, newest first (with --dry-run: as they would be). */
  readonly rows: ReadonlyArray<Evidence>
  /** Rows this collection added (with --dry-run: would add). */
  readonly added: number
  /** Lint rows whose finding is gone, dismissed by this collection. */
  readonly resolved: number
  /** A source that could not be read, and why; the other sources still ran. */
  readonly problems: ReadonlyArray<string>
}

const keyOf = (e: { readonly hash: string; readonly independenceKey?: string | undefined; readonly id: string }) => `${e.hash}\n${e.independenceKey ?? e.id}`

const matches = (options: CollectOptions) => (e: { readonly ref?: string | undefined }): boolean =>
  (options.ref === undefined || e.ref === options.ref) && (options.bundle === undefined || evidenceBundle(e.ref) === options.bundle)

/**
 * Derives evidence from every automatic source — negative feedback, lint
 * findings and broken links, ledger recurrences, failed searches — redacts
 * it and stores it (idempotent: what is already stored stays one row, with
 * its status). Transcript imports and manual rows are added by their own
 * commands. Fast enough to run at the start of every improve run: one lint
 * scan per bundle, two reads of state.db, no model.
 */
export const collectEvidenceReport = Effect.fn("evidence.collect")(function* (options: CollectOptions = {}) {
  const store = yield* EvidenceStore
  const bundle = options.bundle ?? evidenceBundle(options.ref)
  const problems: Array<string> = []
  const derived: Array<EvidenceInput> = [...(yield* evidenceFromFeedback), ...(yield* evidenceFromUsage)]
  const linted = yield* Effect.either(evidenceFromLint(bundle))
  if (Either.isRight(linted)) derived.push(...linted.right.inputs)
  else problems.push(`lint: ${linted.left.message}`)
  const ledger = yield* Effect.either(evidenceFromLedger(bundle))
  if (Either.isRight(ledger)) derived.push(...ledger.right)
  else problems.push(`ledger: ${ledger.left.message}`)
  const inputs = (yield* redactInputs(derived)).filter(matches({ ...options, bundle }))

  const existing = yield* store.list({ ...(options.ref === undefined ? {} : { ref: options.ref }), ...(bundle === undefined ? {} : { bundle }), limit: 1_000_000 })
  const known = new Set(existing.map(keyOf))
  const fresh = inputs.filter((input) => {
    const hash = evidenceHash(input)
    return !known.has(keyOf({ hash, independenceKey: input.independenceKey, id: evidenceId(hash, input.independenceKey) }))
  })
  // A lint finding that is gone (fixed, or the line moved) no longer asks for a change.
  const current = new Set(inputs.map((input) => keyOf({ ...input, hash: evidenceHash(input), id: evidenceId(evidenceHash(input), input.independenceKey) })))
  const lintedBundles = new Set(Either.isRight(linted) ? linted.right.linted : [])
  const gone = existing.filter((e) => e.source === "lint" && e.status === "open" && lintedBundles.has(evidenceBundle(e.ref) ?? "") && !current.has(keyOf(e)))

  if (options.dryRun === true) {
    const now = new Date(yield* Clock.currentTimeMillis).toISOString()
    const goneIds = new Set(gone.map((e) => e.id))
    const would: ReadonlyArray<Evidence> = fresh.map((input) => {
      const hash = evidenceHash(input)
      const id = evidenceId(hash, input.independenceKey)
      return { ...input, id, hash, independenceKey: input.independenceKey ?? id, recordedAt: now, status: "open" }
    })
    const rows = [...would, ...existing.filter((e) => e.status === "open" && !goneIds.has(e.id))]
    return { rows, added: would.length, resolved: gone.length, problems } satisfies CollectReport as CollectReport
  }
  yield* store.add(fresh)
  yield* store.mark(gone.map((e) => e.id), "dismissed")
  const rows = yield* store.list({ ...(options.ref === undefined ? {} : { ref: options.ref }), ...(bundle === undefined ? {} : { bundle }), status: "open", limit: 1_000_000 })
  return { rows, added: fresh.length, resolved: gone.length, problems } satisfies CollectReport as CollectReport
})

/** What the improve run calls first: the open evidence for the options, collected and stored. */
export const collectEvidence = (options: CollectOptions = {}) => Effect.map(collectEvidenceReport(options), (report) => report.rows)
