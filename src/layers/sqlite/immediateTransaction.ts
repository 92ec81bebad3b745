import * as SqlClient from "@effect/sql/SqlClient"
import type { SqlError } from "@effect/sql/SqlError"
import { Effect, Exit, Scope } from "effect"

/**
 * Runs `effect` inside BEGIN IMMEDIATE so a writer takes the write lock up
 * front and waits on busy_timeout, instead of failing with SQLITE_BUSY when it
 * upgrades a read snapshot (the client's own withTransaction issues plain BEGIN).
 */
export const immediateTransaction = <A, E, R>(
  sql: SqlClient.SqlClient,
  effect: Effect.Effect<A, E, R>
): Effect.Effect<A, E | SqlError, Exclude<R, SqlClient.TransactionConnection>> =>
  Effect.uninterruptibleMask((restore) =>
    Effect.gen(function* () {
      const scope = yield* Scope.make()
      const conn = yield* Scope.extend(sql.reserve, scope)
      yield* conn.executeUnprepared("BEGIN IMMEDIATE", [], undefined).pipe(
        Effect.onError(() => Scope.close(scope, Exit.void))
      )
      const exit = yield* Effect.exit(restore(effect.pipe(Effect.provideService(SqlClient.TransactionConnection, [conn, 1] as const))))
      const end = Exit.isSuccess(exit) ? "COMMIT" : "ROLLBACK"
      const ended = yield* Effect.exit(conn.executeUnprepared(end, [], undefined))
      yield* Scope.close(scope, Exit.void)
      if (Exit.isFailure(ended) && Exit.isSuccess(exit)) return yield* Effect.failCause(ended.cause)
      return yield* exit
    })
  )
