import type * as SqlClient from "@effect/sql/SqlClient"
import { Context, Effect, Layer } from "effect"
import { WorkspaceConfig } from "../../services/WorkspaceConfig.js"
import { lazyDatabase, type DatabaseError } from "./LazyDatabase.js"
import { stateMigrations } from "./migrations.js"

/**
 * The one state.db connection, opened on first use, shared by every store
 * that keeps durable truth there (StateStore, UsageLog, proposals …), so all
 * of them see one migration history and one writer lock.
 */
export class StateDb extends Context.Tag("akm/sqlite/StateDb")<StateDb, {
  readonly filename: string
  readonly client: Effect.Effect<SqlClient.SqlClient, DatabaseError>
}>() {}

export const makeStateDb = (filename: string) =>
  Effect.map(lazyDatabase({ filename, migrations: stateMigrations }), (client) => StateDb.of({ filename, client }))

export const StateDbLive = Layer.scoped(StateDb, Effect.flatMap(WorkspaceConfig, (workspace) => makeStateDb(workspace.paths.stateDb)))

/** state.db in memory, for tests. */
export const StateDbMemory = Layer.scoped(StateDb, makeStateDb(":memory:"))
