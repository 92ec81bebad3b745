import { Effect } from "effect"
import type { BundleSource } from "../../domain/Config.js"
import type { LockedBundle } from "../../domain/Lock.js"
import type { Materialized, MaterializeDiagnostic } from "../../services/Materializer.js"
import type { Progress } from "../../services/Progress.js"

/** The akm.lock entry for a freshly materialized revision; a new entry is never stale (spec 01 §3). */
export const lockEntry = (
  source: BundleSource,
  materialized: Materialized,
  adapter: LockedBundle["adapter"],
  installedAt: string,
  updatedAt: string
): LockedBundle => ({
  source: { kind: source.kind, locator: materialized.locator },
  revision: materialized.revision,
  ...(materialized.integrity === undefined ? {} : { integrity: materialized.integrity }),
  root: materialized.root,
  adapter,
  installedAt,
  updatedAt,
  ...(materialized.partial === true ? { partial: true } : {})
})

const SHOWN = 20

/** What the materializer skipped or noticed (escaping symlinks, submodules, refused pages), as warnings on stderr. */
export const reportDiagnostics = (progress: Progress["Type"], bundle: string, diagnostics: ReadonlyArray<MaterializeDiagnostic> | undefined) =>
  Effect.gen(function* () {
    const all = diagnostics ?? []
    for (const d of all.slice(0, SHOWN)) yield* progress.warn(`warning: ${bundle}: ${d.message}${d.path === undefined ? "" : ` (${d.path})`} [${d.code}]`)
    if (all.length > SHOWN) yield* progress.warn(`warning: ${bundle}: … and ${all.length - SHOWN} more (see the JSON output)`)
  })
