import type * as SqlClient from "@effect/sql/SqlClient"
import type { SqlError } from "@effect/sql/SqlError"
import { Effect, Scope } from "effect"
import { WorkspaceUnavailable, type DatabaseTooNew } from "../../domain/Errors.js"
import { openDatabase, type DatabaseSpec } from "./Database.js"

export type DatabaseError = WorkspaceUnavailable | DatabaseTooNew

/**
 * A database opened on first use and closed with the layer's scope. Commands
 * that never touch a db (config, info, --help) pay nothing for it, which keeps
 * start-up short.
 */
export const lazyDatabase = (spec: DatabaseSpec): Effect.Effect<Effect.Effect<SqlClient.SqlClient, DatabaseError>, never, Scope.Scope> =>
  Effect.gen(function* () {
    const scope = yield* Effect.scope
    return yield* Effect.cached(Scope.extend(openDatabase(spec), scope))
  })

/** Maps a failed statement to the workspace error a user sees (with the db's path). */
export const sqlFailure = (filename: string) => (error: SqlError): WorkspaceUnavailable =>
  new WorkspaceUnavailable({
    path: filename,
    reason: `${error.message}: ${error.cause instanceof Error ? error.cause.message : String(error.cause)}`,
    hint: filename.endsWith("index.db") ? "index.db is disposable: delete it and run `akm index`" : "run `akm health`; if the problem stays, restore this file from a backup"
  })
