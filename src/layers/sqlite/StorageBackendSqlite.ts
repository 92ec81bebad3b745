import { Effect, Layer } from "effect"
import { StorageBackend } from "../../services/StorageBackend.js"

/** The default backend: the SQLite files under $DATA, which `akm info` lists itself. */
export const StorageBackendSqlite = Layer.succeed(StorageBackend, StorageBackend.of({ status: Effect.succeed({ backend: "sqlite", reachable: true }) }))
