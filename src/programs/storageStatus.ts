import { Effect, Option } from "effect"
import { StorageBackend, type StorageStatus } from "../services/StorageBackend.js"

/** The storage backend's status; without a StorageBackend (the start-up fast paths serve only SQLite workspaces) it is sqlite. */
export const storageStatus: Effect.Effect<StorageStatus> = Effect.flatMap(Effect.serviceOption(StorageBackend), (backend) =>
  Option.isSome(backend) ? backend.value.status : Effect.succeed<StorageStatus>({ backend: "sqlite", reachable: true }))
