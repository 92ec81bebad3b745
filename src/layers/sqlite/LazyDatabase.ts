import type * as SqlClient from "@effect/sql/SqlClient"
import { Effect, Option, Scope } from "effect"
import type { DatabaseTooNew, WorkspaceUnavailable } from "../../domain/Errors.js"
import { Progress } from "../../services/Progress.js"
import { openDatabase, type DatabaseSpec } from "./Database.js"
import { registerDisposable } from "./Heal.js"

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

/**
 * index.db: like lazyDatabase, but a damaged file is moved aside and started
 * afresh, with a one-line warning through Progress when the layer has one.
 */
export const lazyDisposableDatabase = (spec: Omit<DatabaseSpec, "disposable">) =>
  Effect.gen(function* () {
    const progress = yield* Effect.serviceOption(Progress)
    const warn = Option.match(progress, { onNone: () => Effect.logWarning, onSome: (p) => p.warn })
    registerDisposable(spec.filename, yield* Effect.clock)
    return yield* lazyDatabase({ ...spec, disposable: { warn } })
  })

export { sqlFailure } from "./driver.js"
