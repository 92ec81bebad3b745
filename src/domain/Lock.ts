import { Schema } from "effect"

/**
 * $DATA/akm.lock (JSON, spec 01 §3): what is actually installed — resolved
 * revision, materialized root, the adapter chosen at add time (R-WS-7).
 */
export const LockedBundle = Schema.Struct({
  source: Schema.Struct({ kind: Schema.String, locator: Schema.String }),
  revision: Schema.NullOr(Schema.String),
  integrity: Schema.optional(Schema.String),
  root: Schema.String,
  adapter: Schema.Struct({ id: Schema.String, version: Schema.String }),
  installedAt: Schema.String,
  updatedAt: Schema.String,
  upstream: Schema.optional(Schema.String),
  /** The last update failed; the revision above is still the one in use (R-BUN-2, R-WEB-7). */
  stale: Schema.optional(Schema.Struct({ since: Schema.String, reason: Schema.String })),
  /** A website snapshot cut short by a cap (R-WEB-4). */
  partial: Schema.optional(Schema.Boolean)
})
export type LockedBundle = typeof LockedBundle.Type

export const LockFile = Schema.Struct({
  lockfileVersion: Schema.Literal(1),
  bundles: Schema.Record({ key: Schema.String, value: LockedBundle })
})
export type LockFile = typeof LockFile.Type

export const emptyLock: LockFile = { lockfileVersion: 1, bundles: {} }
