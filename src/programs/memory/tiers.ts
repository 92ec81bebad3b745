import { Effect } from "effect"
import type { BundleAdapter, BundleInfo } from "../../domain/Adapter.js"
import type { MemoryFacet, MemoryRecord } from "../../domain/memory/MemoryRecord.js"
import { memoryPolicy, type MemoryPolicy } from "../../domain/MemoryPolicy.js"
import { BundleFiles } from "../../services/BundleFiles.js"
import { MemoryStore, type ArchiveEntry } from "../../services/MemoryStore.js"
import { WorkspaceConfig } from "../../services/WorkspaceConfig.js"
import { resolveBundle } from "../scan.js"

/** One memory tier as the lifecycle sees it: the bundle's memory files, minus those a valid overlay hides. */
export interface Tier {
  readonly info: BundleInfo
  readonly adapter: BundleAdapter
  readonly facet: MemoryFacet
  /** Memories in the tier now (an overlaid item whose bytes still match is not). */
  readonly active: ReadonlyArray<MemoryRecord>
  /** Overlays that no longer apply: the upstream bytes changed, so the item is back (R-MEM-5). */
  readonly invalidOverlays: ReadonlyArray<ArchiveEntry>
  /** Overlays in force: ref and hash of each hidden item. */
  readonly overlays: ReadonlyArray<ArchiveEntry>
  /** Refs of every file of the bundle (path without its extension): what a successor may name. */
  readonly refs: ReadonlySet<string>
}

/** Lifecycle states whose rows keep an item out of the tier. */
export const OUT_OF_TIER: ReadonlyArray<ArchiveEntry["state"]> = ["retired", "quarantined"]

export const policyNow = Effect.map(Effect.flatMap(WorkspaceConfig, (w) => w.read), (config): MemoryPolicy => memoryPolicy(config.memory))

/** Reads one bundle's tier; undefined when its adapter has no memory facet or the bundle cannot be resolved. */
export const readTier = Effect.fn("memory.tier")(function* (bundle: string) {
  const resolved = yield* Effect.either(resolveBundle(bundle))
  if (resolved._tag === "Left") return undefined
  const { info, adapter } = resolved.right
  if (adapter.memory === undefined) return undefined
  const files = yield* BundleFiles
  const walked = yield* Effect.either(files.walk(info.root, { includeHidden: adapter.includeHidden ?? false }))
  if (walked._tag === "Left") return undefined
  const ctx = files.context(info, walked.right.files)
  const records = yield* adapter.memory.list(ctx)
  const rows = yield* (yield* MemoryStore).list({ bundle, states: OUT_OF_TIER })
  const overlayRows = rows.filter((r) => r.overlay)
  const hidden = new Set(overlayRows.map((r) => `${r.ref}\0${r.digest}`))
  const current = new Map(records.map((r) => [r.ref, r.hash]))
  return {
    info,
    adapter,
    facet: adapter.memory,
    active: records.filter((r) => !hidden.has(`${r.ref}\0${r.hash}`)),
    overlays: overlayRows.filter((r) => current.get(r.ref) === r.digest),
    invalidOverlays: overlayRows.filter((r) => current.has(r.ref) && current.get(r.ref) !== r.digest),
    refs: new Set(walked.right.files.map((f) => `${bundle}//${f.path.replace(/\.[A-Za-z0-9]+$/, "")}`))
  } satisfies Tier as Tier
})

/** Every configured bundle with a memory facet, in config order; `only` narrows to one. */
export const readTiers = Effect.fn("memory.tiers")(function* (only?: string) {
  const config = yield* (yield* WorkspaceConfig).read
  if (only !== undefined) yield* resolveBundle(only)
  const names = only === undefined ? Object.keys(config.bundles) : [only]
  const tiers: Array<Tier> = []
  for (const name of names) {
    const tier = yield* readTier(name)
    if (tier !== undefined) tiers.push(tier)
  }
  return tiers
})

export const sizeOf = (records: ReadonlyArray<MemoryRecord>) => ({ items: records.length, bytes: records.reduce((n, r) => n + r.bytes, 0) })
