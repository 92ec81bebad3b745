import { Effect, Layer } from "effect"
import { StorageBackend, type StorageStatus } from "../../services/StorageBackend.js"
import { PgStateDb } from "./PgStateDb.js"

/** How long info and health wait for the server (connecting retries on a bounded schedule inside it). */
const STATUS_TIMEOUT = "10 seconds"

/** The Postgres backend's status: connects (and migrates) through PgStateDb, then asks the server its version. */
export const StorageBackendPg = Layer.effect(
  StorageBackend,
  Effect.gen(function* () {
    const db = yield* PgStateDb
    const down = (message: string, hint: string): StorageStatus => ({ backend: "postgres", server: db.server, reachable: false, problem: { message, hint } })
    return StorageBackend.of({
      status: db.client.pipe(
        Effect.flatMap((sql) => sql<{ version: string }>`SELECT current_setting('server_version') AS version`),
        Effect.map((rows): StorageStatus => ({ backend: "postgres", server: db.server, version: rows[0]?.version, reachable: true })),
        Effect.timeoutFail({ duration: STATUS_TIMEOUT, onTimeout: () => ({ message: `the PostgreSQL server ${db.server} did not answer within ${STATUS_TIMEOUT}`, hint: "check that the server runs and that storage.url points at it" }) }),
        Effect.catchAll((error) => Effect.succeed(down(error.message, "hint" in error ? error.hint : "check the server's log")))
      )
    })
  })
)
