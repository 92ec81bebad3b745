import type * as SqlClient from "@effect/sql/SqlClient"
import type { SqlError } from "@effect/sql/SqlError"
import * as path from "node:path"
import { Effect, Layer } from "effect"
import { WorkspaceUnavailable } from "../../domain/Errors.js"
import type { AttemptOutcome, AttemptRecord, ImproveRecipe, RunRecord } from "../../domain/Improve.js"
import { ImproveStore, type FieldOutcome } from "../../services/ImproveStore.js"
import type { StateStoreError } from "../../services/StateStore.js"
import { WorkspaceConfig } from "../../services/WorkspaceConfig.js"
import { withLease } from "../fs/transaction/Lease.js"
import { immediateTransaction } from "./Database.js"
import { sqlFailure } from "./LazyDatabase.js"
import { workspaceLease } from "./leaseEvents.js"
import { StateDb } from "./StateDb.js"

interface AttemptRow {
  readonly run_id: string
  readonly fingerprint: string
  readonly recipe: ImproveRecipe
  readonly target: string
  readonly outcome: AttemptOutcome
  readonly reason: string | null
  readonly proposal_id: string | null
  readonly at: string
}

interface OutcomeRow {
  readonly proposal_id: string
  readonly fingerprint: string
  readonly target: string
  readonly kind: string
  readonly at: string
}

const toAttempt = (row: AttemptRow): AttemptRecord => ({
  runId: row.run_id,
  fingerprint: row.fingerprint,
  recipe: row.recipe,
  target: row.target,
  outcome: row.outcome,
  ...(row.reason === null ? {} : { reason: row.reason }),
  ...(row.proposal_id === null ? {} : { proposalId: row.proposal_id }),
  at: row.at
})

const toOutcome = (row: OutcomeRow): FieldOutcome => ({ proposalId: row.proposal_id, fingerprint: row.fingerprint, target: row.target, kind: row.kind, at: row.at })

/** How long a second run waits for the first; a scheduled run passes --skip-if-locked instead. */
const WAIT_MILLIS = 10 * 60_000
/** A run older than this is hung: its lease is taken over even if its process still runs. */
const MAX_AGE_MILLIS = 6 * 3_600_000
const BUSY = "the workspace is busy"

/** ImproveStore over the shared state.db connection (migration 0008_improve_runs) and `$DATA/locks/improve.lock`. */
export const ImproveStoreSqlite = Layer.effect(
  ImproveStore,
  Effect.gen(function* () {
    const stateDb = yield* StateDb
    const workspace = yield* WorkspaceConfig
    const leaseFile = path.join(workspace.paths.locksDir, "improve.lock")
    const fail = sqlFailure(stateDb.filename)
    const write = <A>(f: (sql: SqlClient.SqlClient) => Effect.Effect<A, SqlError>): Effect.Effect<A, StateStoreError> =>
      Effect.flatMap(stateDb.client, (sql) => immediateTransaction(sql, f(sql)).pipe(Effect.mapError(fail)))
    const read = <A>(f: (sql: SqlClient.SqlClient) => Effect.Effect<A, SqlError>): Effect.Effect<A, StateStoreError> =>
      Effect.flatMap(stateDb.client, (sql) => f(sql).pipe(Effect.mapError(fail)))

    return ImproveStore.of({
      withRunLease: (effect, options) => {
        const lease = workspaceLease(leaseFile, "the improve lease", { waitMillis: options.skipIfLocked ? 0 : WAIT_MILLIS, maxAgeMillis: MAX_AGE_MILLIS })
        const busy = (e: unknown): e is WorkspaceUnavailable =>
          options.skipIfLocked && e instanceof WorkspaceUnavailable && e.path === leaseFile && e.reason.startsWith(BUSY)
        return withLease(lease)(Effect.map(effect, (value) => ({ _tag: "Ran" as const, value }))).pipe(
          Effect.catchIf(busy, (e) => Effect.succeed({ _tag: "Locked" as const, holder: e.reason }))
        )
      },
      recordRun: (run) =>
        write((sql) =>
          Effect.gen(function* () {
            yield* sql`INSERT INTO improve_runs ${sql.insert({ id: run.id, started_at: run.startedAt, finished_at: run.finishedAt, status: run.status, record: JSON.stringify(run) })}`
            yield* sql`INSERT INTO events (at, kind, subject, data) VALUES (${run.finishedAt}, 'improve.run', ${run.id}, ${JSON.stringify({
              status: run.status,
              targets: run.targets.length,
              proposals: run.proposals.length,
              modelCalls: run.modelCalls
            })})`
          })),
      runs: (last) =>
        read((sql) => sql<{ record: string }>`SELECT record FROM improve_runs ORDER BY started_at DESC, rowid DESC LIMIT ${Math.max(1, Math.floor(last))}`).pipe(
          Effect.map((rows) => rows.map((r) => JSON.parse(r.record) as RunRecord))
        ),
      recordAttempt: (a) =>
        write((sql) => sql`INSERT INTO improve_attempts ${sql.insert({
          run_id: a.runId,
          fingerprint: a.fingerprint,
          recipe: a.recipe,
          target: a.target,
          outcome: a.outcome,
          reason: a.reason ?? null,
          proposal_id: a.proposalId ?? null,
          at: a.at
        })}`).pipe(Effect.asVoid),
      attempts: (fingerprint) =>
        read((sql) => sql<AttemptRow>`SELECT * FROM improve_attempts WHERE fingerprint = ${fingerprint} ORDER BY id DESC`).pipe(Effect.map((rows) => rows.map(toAttempt))),
      proposedAttempts: read((sql) => sql<AttemptRow>`SELECT * FROM improve_attempts WHERE proposal_id IS NOT NULL ORDER BY id DESC`).pipe(Effect.map((rows) => rows.map(toAttempt))),
      recordOutcome: (o) =>
        write((sql) => sql`INSERT INTO improve_outcomes ${sql.insert({ proposal_id: o.proposalId, fingerprint: o.fingerprint, target: o.target, kind: o.kind, at: o.at })}`).pipe(Effect.asVoid),
      outcomes: read((sql) => sql<OutcomeRow>`SELECT proposal_id, fingerprint, target, kind, at FROM improve_outcomes ORDER BY id`).pipe(Effect.map((rows) => rows.map(toOutcome)))
    })
  })
)
