import * as SqlClient from "@effect/sql/SqlClient"
import { Effect, Layer, Option, SynchronizedRef } from "effect"
import { IndexStore } from "../../services/IndexStore.js"
import { configuredWritable, WorkspaceConfig } from "../../services/WorkspaceConfig.js"
import { makeIndexStorePg } from "./index/store.js"
import { PgStateDb, PgStateDbLive } from "./PgStateDb.js"

type Store = IndexStore["Type"]

/**
 * Every method of a store that is made on first use: the index's statements
 * need a connected client, and a command that never reads the index (config,
 * --help, an unreachable server's `akm health`) must never connect.
 */
const deferred = (store: Effect.Effect<Store, Effect.Effect.Error<Store["init"]>>): Store =>
  new Proxy({} as Store, {
    get: (_, key: keyof Store) => {
      const value = (probe as Record<string, unknown>)[key]
      return typeof value === "function"
        ? (...args: ReadonlyArray<unknown>) => Effect.flatMap(store, (s) => (s[key] as (...a: ReadonlyArray<unknown>) => Effect.Effect<unknown, unknown, unknown>)(...args))
        : Effect.flatMap(store, (s) => s[key] as Effect.Effect<unknown, unknown, unknown>)
    }
  })

// Which members are methods and which are effects: read from the service's own shape.
const probe: Readonly<Record<keyof Store, "effect" | (() => void)>> = {
  init: "effect", bundles: "effect", lastIndexed: "effect", counts: "effect",
  persist: () => {}, persistStreamed: () => {}, diff: () => {}, manifest: () => {}, itemInputs: () => {}, markStale: () => {},
  recordIndexRun: () => {}, resolve: () => {}, has: () => {}, candidates: () => {}, items: () => {}, excerpts: () => {}, browse: () => {},
  typeSizes: () => {}, removeBundle: () => {}, renameBundle: () => {}, cachedTokens: () => {}, storeTokens: () => {},
  replaceUtilities: () => {}, updateUtility: () => {}, retireOverlay: () => {}, withWriteLease: () => {}
}

/**
 * IndexStore on the team database (storage.kind: postgres; decision 0034),
 * made on the PgStateDb client when first used. Only success is kept, as
 * PgStateDb does: a server whose database was down connects on a later call.
 */
export const IndexStorePgOnStateDb = Layer.effect(
  IndexStore,
  Effect.gen(function* () {
    const db = yield* PgStateDb
    const workspace = yield* WorkspaceConfig
    const made = yield* SynchronizedRef.make(Option.none<Store>())
    const store = SynchronizedRef.modifyEffect(made, (current) =>
      Option.isSome(current)
        ? Effect.succeed([current.value, current] as const)
        : db.client.pipe(
          Effect.flatMap((sql) => makeIndexStorePg({ label: `${db.server} (index)`, writable: configuredWritable(workspace) }).pipe(Effect.provideService(SqlClient.SqlClient, sql))),
          Effect.map((s) => [s, Option.some(s)] as const)
        ))
    return deferred(store)
  })
)

/**
 * IndexStorePgOnStateDb on storage.url (AkmLive when storage.kind is postgres).
 * `PgStateDbLive` is the very layer value StateStoresLive and
 * BundleWriteLockLive provide, and one build memoises a layer by reference: a
 * process keeps one PgStateDb, so one pool, for state, index and the write
 * lock (decision 0042; test/postgres/onePool.test.ts counts the backends).
 * Wrapping it (Layer.fresh, a copy) would open a second pool.
 */
export const IndexStorePgLive = IndexStorePgOnStateDb.pipe(Layer.provide(PgStateDbLive))
