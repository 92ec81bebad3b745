import { Duration, Effect, Exit, Layer, Schedule, Scope } from "effect"
import { WorkspaceUnavailable } from "../../domain/Errors.js"
import { BundleWriteLock } from "../../services/BundleWriteLock.js"
import { pgFailure } from "./client.js"
import { PgStateDb } from "./PgStateDb.js"

/** One key per database: every akm server on it writes bundle files one at a time (docs/decisions/0033). */
export const BUNDLE_WRITE_LOCK_KEY = "akm/bundle-writes"
/** As long as the engine waits for its own lease. */
const WAIT_MILLIS = 30_000

class Busy {
  readonly _tag = "Busy"
}

/**
 * A session advisory lock on a connection reserved for the write: no
 * transaction, so the engine's callers' statements stay their own, and a
 * server that dies mid-write loses the lock with its connection. Waits on a
 * bounded, jittered schedule, then fails as a busy lease does.
 */
export const makeBundleWriteLockPg = (db: PgStateDb["Type"], waitMillis = WAIT_MILLIS): BundleWriteLock["Type"] => ({
  around: <A, E>(effect: Effect.Effect<A, E>) =>
    Effect.acquireUseRelease(
      Scope.make(),
      (scope) =>
        Effect.gen(function* () {
          const sql = yield* db.client.pipe(Effect.mapError((e) => e._tag === "WorkspaceUnavailable" ? e : new WorkspaceUnavailable({ path: e.path, reason: "the database was written by a newer akm", hint: e.hint })))
          const conn = yield* Scope.extend(sql.reserve, scope).pipe(Effect.mapError(pgFailure(db.server)))
          const attempt = conn.execute("SELECT pg_try_advisory_lock(hashtext($1)) AS taken", [BUNDLE_WRITE_LOCK_KEY], undefined).pipe(
            Effect.mapError(pgFailure(db.server)),
            Effect.flatMap((rows) => (rows[0]?.taken === true ? Effect.void : Effect.fail(new Busy())))
          )
          yield* attempt.pipe(
            Effect.retry({ while: (e) => e instanceof Busy, schedule: Schedule.spaced(Duration.millis(50)).pipe(Schedule.jittered, Schedule.upTo(Duration.millis(waitMillis))) }),
            Effect.catchIf((e): e is Busy => e instanceof Busy, () =>
              Effect.fail(new WorkspaceUnavailable({
                path: db.server,
                reason: `another akm server has been writing bundles for ${Math.round(waitMillis / 1000)} s (the bundle write lock)`,
                hint: "try again shortly; a server that died releases the lock with its connection"
              })))
          )
          yield* Scope.addFinalizer(scope, Effect.ignore(conn.execute("SELECT pg_advisory_unlock(hashtext($1))", [BUNDLE_WRITE_LOCK_KEY], undefined)))
          return yield* effect
        }),
      (scope, exit) => Scope.close(scope, Exit.isSuccess(exit) ? Exit.void : exit)
    )
})

/** BundleWriteLock on the team database of storage.url. */
export const BundleWriteLockPg = Layer.effect(BundleWriteLock, Effect.map(PgStateDb, (db) => BundleWriteLock.of(makeBundleWriteLockPg(db))))
