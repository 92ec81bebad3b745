import { isWritable, type BundleConfig } from "../../domain/Config.js"
import type { LockedBundle } from "../../domain/Lock.js"

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
  readonly default: boolean
}

export const bundleView = (
  name: string,
  config: BundleConfig,
  lock: LockedBundle | undefined,
  items: number,
  defaultBundle: string | undefined
): BundleView => ({
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
  diagnostics: { error: 0, warning: 0, info: 0 },
  ...(lock === undefined ? { stale: { since: "never installed", reason: "the bundle is in config.yaml but not installed; remove it and add it again with `akm bundle add`" } } : {}),
  default: defaultBundle === name
})
