import type * as SqlClient from "@effect/sql/SqlClient"
import type { SqlError } from "@effect/sql/SqlError"
import { Effect, Option, Scope } from "effect"
import { WorkspaceUnavailable, type DatabaseTooNew } from "../../domain/Errors.js"
import { Progress } from "../../services/Progress.js"
import { openDatabase, type DatabaseSpec } from "./Database.js"
import { damagedDatabase, healAfterFailure, isDamage, registerDisposable } from "./Heal.js"

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

/** Maps a failed statement to the workspace error a user sees (with the db's path). */
export const sqlFailure = (filename: string) => (error: SqlError): WorkspaceUnavailable => {
  const healed = healAfterFailure(filename, error)
  if (healed !== undefined) return healed
  const index = filename.endsWith("index.db")
  if (!index && isDamage(error)) return damagedDatabase(filename, error.cause ?? error)
  return new WorkspaceUnavailable({
    path: filename,
    reason: `${error.message}: ${error.cause instanceof Error ? error.cause.message : String(error.cause)}`,
    hint: index ? "index.db is disposable: delete it and run `akm index`" : "run `akm health`; if the problem stays, restore this file from a backup"
  })
}
