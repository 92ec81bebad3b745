import type * as SqlClient from "@effect/sql/SqlClient"
import { Effect, Scope } from "effect"
import type { DatabaseTooNew, WorkspaceUnavailable } from "../../domain/Errors.js"
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

export { sqlFailure } from "./driver.js"
