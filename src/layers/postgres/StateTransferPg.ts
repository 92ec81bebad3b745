import type * as PgClient from "@effect/sql-pg/PgClient"
import * as SqlClient from "@effect/sql/SqlClient"
import type { SqlError } from "@effect/sql/SqlError"
import { existsSync } from "node:fs"
import { Context, Effect, Layer } from "effect"
import { Conflict, type WorkspaceUnavailable } from "../../domain/Errors.js"
import { StateTransfer, type TransferredTable } from "../../services/StateTransfer.js"
import { WorkspaceConfig } from "../../services/WorkspaceConfig.js"
import { sqlFailure } from "../sqlite/driver.js"
import { StateDb } from "../sqlite/StateDb.js"
import { int8, pgRun, type Int8 } from "./pgRun.js"
import { makePgStateDb, storageUrl } from "./PgStateDb.js"
import { describeUrl } from "./client.js"

/**
 * What moves, in dependency order, with the columns both schemas share
 * (sqlite/migrations.ts, postgres/migrations.ts). Ids are kept, so refs to
 * proposals and outcomes stay valid; `proposals.seq` follows the copy order
 * (SQLite's rowid order). Run log lines are purgeable and stay behind.
 */
const TABLES: ReadonlyArray<{ readonly table: string; readonly columns: ReadonlyArray<string>; readonly identity?: string }> = [
  { table: "events", columns: ["id", "at", "kind", "subject", "data"], identity: "id" },
  { table: "usage_events", columns: ["id", "at", "kind", "ref", "query", "refs", "source"], identity: "id" },
  { table: "feedback", columns: ["id", "at", "ref", "polarity", "reason", "tags", "source"], identity: "id" },
  { table: "utility", columns: ["ref", "value", "outcomes", "updated_at"] },
  { table: "proposals", columns: ["id", "title", "recipe", "change_class", "status", "fingerprint", "evidence", "evaluation", "created_at", "decided_at", "decided_by", "reason"] },
  { table: "proposal_changes", columns: ["proposal_id", "position", "bundle", "path", "before_hash", "after", "after_kind", "after_hash", "mode"] },
  { table: "proposal_outcomes", columns: ["id", "proposal_id", "at", "kind", "data"], identity: "id" },
  { table: "proposal_applied", columns: ["outcome_id", "position", "bundle", "path", "before_hash", "after_hash", "backup"] },
  { table: "evidence", columns: ["id", "hash", "independence_key", "kind", "source", "ref", "note", "query", "origin", "observed_at", "recorded_at", "status", "data"] }
]

/** Rows read and written per statement: bounded memory for a large usage log. */
const BATCH = 500

/** A read of the SQLite source: outside the PostgreSQL transaction (both clients share @effect/sql's transaction tag). */
type SourceRead = <A>(effect: Effect.Effect<A, SqlError>) => Effect.Effect<A, WorkspaceUnavailable>

/** Copies one table: pages the source by rowid, inserts each page. */
const copyTable = (source: SqlClient.SqlClient, read: SourceRead, target: PgClient.PgClient, spec: (typeof TABLES)[number]) =>
  Effect.gen(function* () {
    const columns = spec.columns.join(", ")
    let after = 0
    for (;;) {
      const rows = yield* read(source.unsafe<Record<string, unknown> & { readonly _rowid: number }>(
        `SELECT rowid AS _rowid, ${columns} FROM ${spec.table} WHERE rowid > ? ORDER BY rowid LIMIT ${BATCH}`,
        [after]
      ))
      if (rows.length === 0) return
      after = rows[rows.length - 1]!._rowid
      const values = rows.map(({ _rowid, ...row }) => row)
      yield* target`INSERT INTO ${target(spec.table)} ${target.insert(values)}`
    }
  })

const count = (sql: SqlClient.SqlClient, table: string) =>
  Effect.map(sql.unsafe<{ n: Int8 }>(`SELECT count(*) AS n FROM ${table}`), (rows) => int8(rows[0]?.n ?? 0))

/** StateTransfer from the local state.db (StateDb) into the PostgreSQL database of storage.url. */
export const StateTransferPg = Layer.scoped(
  StateTransfer,
  Effect.gen(function* () {
    const workspace = yield* WorkspaceConfig
    const stateDb = yield* StateDb
    const url = yield* Effect.cached(yield* storageUrl)
    const server = yield* url.pipe(Effect.map(describeUrl), Effect.orElseSucceed(() => "postgres (storage.url)"))
    const target = pgRun(yield* makePgStateDb(server, url))
    const fail = sqlFailure(stateDb.filename)
    const read: SourceRead = (effect) =>
      effect.pipe(Effect.mapError(fail), Effect.mapInputContext((context: Context.Context<never>) => Context.omit(SqlClient.TransactionConnection)(context)))

    return StateTransfer.of({
      toPostgres: Effect.gen(function* () {
        const config = yield* workspace.read.pipe(Effect.orElseSucceed(() => undefined))
        if (config?.storage?.kind !== "postgres") {
          return yield* new Conflict({
            message: "storage.kind is not postgres: there is no PostgreSQL database to migrate into",
            hint: "set `storage: { kind: postgres }` in config.yaml and export AKM_DATABASE_URL (or set storage.url), then run `akm storage migrate`"
          })
        }
        if (!existsSync(stateDb.filename)) {
          return yield* new Conflict({ message: `there is no ${stateDb.filename}: nothing to migrate`, hint: "run `akm storage migrate` on the machine that holds the workspace's state.db" })
        }
        const source = yield* stateDb.client
        // One transaction on PostgreSQL: it commits only when every count matches, so a failed run leaves the
        // target empty. A writer adding rows to state.db meanwhile makes a count differ: stop other akm processes first.
        const tables = yield* target.write((pg) =>
            Effect.gen(function* () {
              const present = yield* Effect.forEach(TABLES, (spec) => Effect.map(count(pg, spec.table), (n) => [spec.table, n] as const))
              const occupied = present.filter(([, n]) => n > 0)
              if (occupied.length > 0) {
                return yield* new Conflict({
                  message: `${server} already holds state (${occupied.map(([table, n]) => `${n} ${table}`).join(", ")}); migrate copies only into an empty database`,
                  hint: "point storage.url at a new database (or drop its akm tables), then run `akm storage migrate` again"
                })
              }
              const report: Array<TransferredTable> = []
              for (const spec of TABLES) {
                const expected = yield* read(count(source, spec.table))
                yield* copyTable(source, read, pg, spec)
                if (spec.identity !== undefined) {
                  yield* pg`SELECT setval(pg_get_serial_sequence(${spec.table}, ${spec.identity}), coalesce(max(${pg(spec.identity)}), 0) + 1, false) FROM ${pg(spec.table)}`
                }
                const copied = yield* count(pg, spec.table)
                if (copied !== expected) {
                  return yield* new Conflict({
                    message: `${spec.table}: state.db holds ${expected} rows but ${copied} arrived in ${server}; nothing was committed`,
                    hint: "run `akm storage migrate` again; if the counts differ again, report it with the table's name"
                  })
                }
                report.push({ table: spec.table, source: expected, target: copied })
              }
              return report
            })
        )
        return { from: stateDb.filename, to: server, tables }
      })
    })
  })
)
