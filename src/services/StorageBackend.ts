import { Context, type Effect } from "effect"

/** Where the state-side stores live, as `akm info` and `akm health` report it. Never a URL with credentials. */
export interface StorageStatus {
  readonly backend: "sqlite" | "postgres"
  /** postgres: the server as `postgres://host:port/db` (no user, password or options). */
  readonly server?: string | undefined
  /** postgres: the server's version, when it answered. */
  readonly version?: string | undefined
  /** postgres: whether the server answered (and the schema is migrated); sqlite is local, always true. */
  readonly reachable: boolean
  /** Why it did not answer, with what to do. */
  readonly problem?: { readonly message: string; readonly hint: string } | undefined
}

/**
 * The storage backend of StateStore, UsageLog, ProposalStore and LogStore
 * (config `storage.kind`; docs/decisions/0033-postgres-state-layers.md). Its
 * status never fails: an unreachable server is a status, for health to list.
 */
export class StorageBackend extends Context.Tag("akm/StorageBackend")<StorageBackend, {
  readonly status: Effect.Effect<StorageStatus>
}>() {}
