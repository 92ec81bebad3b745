import { Effect } from "effect"
import type { BundleIndexState, DiagnosticCounts } from "../../../services/IndexStore.js"
import type { SearchSql } from "./query.js"
import { literal } from "./sqlText.js"

/** The `bundles` table of index.db as IndexStore reports it. */

export interface BundleRow {
  readonly name: string
  readonly items: number
  readonly adapter: string | null
  readonly version: string | null
  readonly indexedAt: string | null
  readonly writable: number | null
  readonly errors: number | null
  readonly warnings: number | null
  readonly infos: number | null
  readonly staleReason: string | null
  readonly root: string | null
}

export const BUNDLE_COLUMNS = "name, items, adapter, adapter_version AS version, indexed_at AS indexedAt, writable, errors, warnings, infos, stale_reason AS staleReason, root"

export const countsOf = (row: BundleRow): DiagnosticCounts | undefined =>
  row.errors === null || row.warnings === null || row.infos === null ? undefined : { error: row.errors, warning: row.warnings, info: row.infos }

/** What a bundles row says beyond the item count. */
export const bundleState = (row: BundleRow) => {
  const diagnostics = countsOf(row)
  return {
    ...(row.adapter === null || row.version === null ? {} : { adapter: { id: row.adapter, version: row.version } }),
    ...(row.indexedAt === null ? {} : { indexedAt: row.indexedAt }),
    ...(row.writable === null ? {} : { writable: row.writable === 1 }),
    ...(diagnostics === undefined ? {} : { diagnostics }),
    ...(row.staleReason === null ? {} : { staleReason: row.staleReason })
  }
}

/** Every bundle's row, by name (IndexStore.bundles). */
export const listBundles = (sql: SearchSql) =>
  Effect.map(sql.rows<BundleRow>(literal(`SELECT ${BUNDLE_COLUMNS} FROM bundles ORDER BY name`)), (rows) =>
    rows.map((row): BundleIndexState => ({ bundle: row.name, items: row.items, ...bundleState(row) }))
  )
