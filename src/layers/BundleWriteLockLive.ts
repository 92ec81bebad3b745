import { Effect, Layer } from "effect"
import { BundleWriteLock } from "../services/BundleWriteLock.js"
import { WorkspaceConfig } from "../services/WorkspaceConfig.js"
import { BundleWriteLockPg } from "./postgres/BundleWriteLockPg.js"
import { PgStateDbLive } from "./postgres/PgStateDb.js"

/**
 * The cross-server bundle write lock when storage.kind is postgres (servers
 * sharing bundle folders), none otherwise. Builds no connection: the lock
 * connects on the first write, on the pool the state stores and the index
 * share (the same PgStateDbLive value, memoised: decision 0042).
 */
export const BundleWriteLockLive = Layer.unwrapEffect(
  Effect.map(
    Effect.flatMap(WorkspaceConfig, (workspace) => Effect.orElseSucceed(Effect.map(workspace.read, (config) => config.storage?.kind ?? "sqlite"), () => "sqlite" as const)),
    (kind) => (kind === "postgres" ? BundleWriteLockPg.pipe(Layer.provide(PgStateDbLive)) : Layer.succeed(BundleWriteLock, BundleWriteLock.none))
  )
)
