import type * as PgClient from "@effect/sql-pg/PgClient"
import * as SqlClient from "@effect/sql/SqlClient"
import { SqlError } from "@effect/sql/SqlError"
import { Context, Effect, Layer, Option, type Redacted, Scope, SynchronizedRef } from "effect"
import { DEFAULT_DATABASE_URL } from "../../domain/Config.js"
import { WorkspaceUnavailable } from "../../domain/Errors.js"
import { Credentials } from "../../services/Credentials.js"
import { WorkspaceConfig } from "../../services/WorkspaceConfig.js"
import type { DatabaseError } from "../sqlite/LazyDatabase.js"
import { connectPg, describeUrl, isSafeToRetry, pgFailure, RETRY_SCHEDULE, type PgConnectOptions } from "./client.js"
import { migrateHistory } from "./migrationHistory.js"
import { pgStateMigrations, STATE_MIGRATIONS_TABLE } from "./migrations.js"

/**
 * The state-side PostgreSQL database, connected and migrated on first use,
 * shared by every Postgres store (StateStore, UsageLog, ProposalStore,
 * LogStore): the Postgres counterpart of StateDb.ts. Commands that never touch
 * state (config, --help) never connect.
 */
export class PgStateDb extends Context.Tag("akm/postgres/PgStateDb")<PgStateDb, {
  /** The server as messages name it: `postgres://host:port/db` (no user, password or options). */
  readonly server: string
  readonly client: Effect.Effect<PgClient.PgClient, DatabaseError>
}>() {}

/** The state stores' history, migrated by the one helper the index's history uses too (migrationHistory.ts). */
const migrate = (sql: PgClient.PgClient, server: string) =>
  migrateHistory({
    table: STATE_MIGRATIONS_TABLE,
    migrations: pgStateMigrations,
    lock: STATE_MIGRATIONS_TABLE,
    label: server,
    hint: "upgrade akm on this server: another akm with a newer schema uses this database"
  }).pipe(
    Effect.provideService(SqlClient.SqlClient, sql),
    Effect.retry({ while: (error) => error instanceof SqlError && isSafeToRetry(error, true), schedule: RETRY_SCHEDULE }),
    Effect.mapError((error) =>
      error instanceof SqlError
        ? pgFailure(server)(error)
        : error._tag === "MigrationError"
        ? new WorkspaceUnavailable({ path: server, reason: error.message, hint: "check the server's log; the migration was rolled back" })
        : error
    )
  )

/** Connects and migrates; the pool closes with the scope. */
export const openPgState = (url: Redacted.Redacted<string>, options?: PgConnectOptions): Effect.Effect<PgClient.PgClient, DatabaseError, Scope.Scope> =>
  Effect.tap(connectPg(url, options), (sql) => migrate(sql, describeUrl(url)))

/**
 * A PgStateDb opened on first use. Only success is kept: a long-running
 * server (`akm mcp --http`) whose database was down at its first request
 * connects on a later one.
 */
export const makePgStateDb = (server: string, url: Effect.Effect<Redacted.Redacted<string>, DatabaseError>, options?: PgConnectOptions) =>
  Effect.gen(function* () {
    const scope = yield* Effect.scope
    const opened = yield* SynchronizedRef.make(Option.none<PgClient.PgClient>())
    const client = SynchronizedRef.modifyEffect(opened, (current) =>
      Option.isSome(current)
        ? Effect.succeed([current.value, current] as const)
        : Effect.map(Effect.flatMap(url, (resolved) => Scope.extend(openPgState(resolved, options), scope)), (sql) => [sql, Option.some(sql)] as const))
    return PgStateDb.of({ server, client })
  })

/**
 * storage.url resolved through Credentials (env:VAR or secret:<ref>; default
 * env:AKM_DATABASE_URL). A missing or unresolvable reference is a
 * WorkspaceUnavailable that names the reference, never a value.
 */
export const storageUrl = Effect.gen(function* () {
  const workspace = yield* WorkspaceConfig
  const credentials = yield* Credentials
  return workspace.read.pipe(
    Effect.map((config) => config.storage?.url ?? DEFAULT_DATABASE_URL),
    Effect.mapError((invalid) => new WorkspaceUnavailable({ path: invalid.file, reason: invalid.message, hint: invalid.hint })),
    Effect.flatMap((reference) =>
      credentials.resolve(reference).pipe(
        Effect.mapError((unavailable) =>
          new WorkspaceUnavailable({ path: "storage.url", reason: `the PostgreSQL URL is not available: ${unavailable.message}`, hint: unavailable.hint })
        )
      ))
  )
})

/** PgStateDb from config.yaml's storage.url (AkmLive when storage.kind is postgres). */
export const PgStateDbLive = Layer.scoped(
  PgStateDb,
  Effect.gen(function* () {
    const url = yield* storageUrl
    // The server's name is known once the URL resolves; until then messages name the reference.
    const resolved = yield* Effect.cached(url)
    const server = yield* resolved.pipe(Effect.map(describeUrl), Effect.orElseSucceed(() => "postgres (storage.url)"))
    return yield* makePgStateDb(server, resolved)
  })
)

/** A PgStateDb on an explicit URL (tests, `akm storage migrate`). */
export const pgStateDbAt = (url: Redacted.Redacted<string>, options?: PgConnectOptions) =>
  Layer.scoped(PgStateDb, makePgStateDb(describeUrl(url), Effect.succeed(url), options))
