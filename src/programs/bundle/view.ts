import { isWritable, type BundleConfig } from "../../domain/Config.js"
import type { LockedBundle } from "../../domain/Lock.js"
import type { BundleIndexState } from "../../services/IndexStore.js"

/** The bundle object of spec 02 §1, shared by `bundle show`, `bundle list` and `bundle add`. */
export interface BundleView {
  readonly name: string
  readonly source: BundleConfig["source"]
  readonly adapter: string
  readonly writable: boolean
  readonly root: string | null
  readonly revision: string | null
  readonly integrity?: string
  readonly installedAt: string | null
  readonly updatedAt: string | null
  readonly items: number
  readonly diagnostics: { readonly error: number; readonly warning: number; readonly info: number }
  readonly stale?: { readonly since: string; readonly reason: string }
  /** A website snapshot cut short by a cap (R-WEB-4). */
  readonly partial?: boolean
  /** `refresh:` from config.yaml: how often `bundle update --due` refreshes it. */
  readonly refresh?: string
  readonly default: boolean
}

const notInstalled = { since: "never installed", reason: "the bundle is in config.yaml but not installed; run `akm bundle update <name>` to install it" }

/**
 * Why the bundle needs attention, most fundamental first: not installed, its
 * last update failed (the lock keeps the last good revision, R-BUN-2), or its
 * index rows are from an earlier run (R-IDX-3).
 */
const staleness = (lock: LockedBundle | undefined, index: BundleIndexState | undefined): BundleView["stale"] => {
  if (lock === undefined) return notInstalled
  if (lock.stale !== undefined) return lock.stale
  if (index?.staleReason !== undefined) return { since: index.indexedAt ?? lock.updatedAt, reason: index.staleReason }
  return undefined
}

export const bundleView = (
  name: string,
  config: BundleConfig,
  lock: LockedBundle | undefined,
  items: number,
  defaultBundle: string | undefined,
  index?: BundleIndexState
): BundleView => {
  const stale = staleness(lock, index)
  return {
    name,
    source: config.source,
    adapter: config.adapter ?? lock?.adapter.id ?? "unknown",
    writable: isWritable(config),
    root: lock?.root ?? null,
    revision: lock?.revision ?? null,
    ...(lock?.integrity === undefined ? {} : { integrity: lock.integrity }),
    installedAt: lock?.installedAt ?? null,
    updatedAt: lock?.updatedAt ?? null,
    items,
    diagnostics: index?.diagnostics ?? { error: 0, warning: 0, info: 0 },
    ...(stale === undefined ? {} : { stale }),
    ...(lock?.partial === true ? { partial: true } : {}),
    ...(config.refresh === undefined ? {} : { refresh: config.refresh }),
    default: defaultBundle === name
  }
}
