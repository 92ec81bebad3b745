import { Schema } from "effect"

/**
 * The memory tier's limits (spec 01 §2, spec 06 §8.2): config.yaml's `memory`
 * section. Each memory-capable bundle is one tier; crossing either high
 * water makes consolidation required, which `akm health` reports.
 */

/** The spec's defaults: the one place they are written down. */
export const MEMORY_DEFAULTS = {
  highWaterItems: 1000,
  lowWaterItems: 800,
  highWaterBytes: 52_428_800,
  retireGraceDays: 30,
  archiveRetentionDays: 180,
  archiveMaxBytes: 1_073_741_824
} as const

/** What background intake does while a tier cannot safely reach low water (R-MEM-2). */
export type BackgroundIntake = "queue" | "write"

export type MemoryPolicy = { readonly [K in keyof typeof MEMORY_DEFAULTS]: number } & {
  /** "queue" (the default): automatic capture waits in state.db instead of writing memory files. */
  readonly backgroundIntakeWhenBlocked: BackgroundIntake
  /** Retirement by claim coverage (not only deterministic cleanup) runs only when this is true (R-MEM-4). */
  readonly semanticRetirement: boolean
}

/** Where consolidation aims when only `highWaterItems` is set: the defaults' 800 of 1000. */
const LOW_WATER_RATIO = MEMORY_DEFAULTS.lowWaterItems / MEMORY_DEFAULTS.highWaterItems

const PositiveInt = Schema.Int.pipe(Schema.positive()).annotations({
  message: (issue) => ({ message: `must be a whole number above 0, actual ${JSON.stringify(issue.actual)}`, override: true })
})

/**
 * The section as written. Keys other than these are accepted, as the section
 * was before it had a schema: later releases add keys (spec 06 §8.2's
 * `backgroundIntakeWhenBlocked`) that an older config must not break on.
 */
export const MemorySection = Schema.Struct(
  {
    highWaterItems: Schema.optional(PositiveInt),
    lowWaterItems: Schema.optional(PositiveInt),
    highWaterBytes: Schema.optional(PositiveInt),
    retireGraceDays: Schema.optional(PositiveInt),
    archiveRetentionDays: Schema.optional(PositiveInt),
    archiveMaxBytes: Schema.optional(PositiveInt),
    backgroundIntakeWhenBlocked: Schema.optional(Schema.Literal("queue", "write").annotations({
      message: (issue) => ({ message: `must be queue or write, actual ${JSON.stringify(issue.actual)}`, override: true })
    })),
    semanticRetirement: Schema.optional(Schema.Boolean.annotations({
      message: (issue) => ({ message: `must be true or false, actual ${JSON.stringify(issue.actual)}`, override: true })
    }))
  },
  Schema.Record({ key: Schema.String, value: Schema.Unknown })
)
export type MemorySection = typeof MemorySection.Type

/** The policy in force: the section over the defaults; an unset `lowWaterItems` follows a set `highWaterItems`. */
export const memoryPolicy = (section: MemorySection | undefined): MemoryPolicy => {
  const highWaterItems = section?.highWaterItems ?? MEMORY_DEFAULTS.highWaterItems
  return {
    highWaterItems,
    lowWaterItems: section?.lowWaterItems ?? Math.floor(highWaterItems * LOW_WATER_RATIO),
    highWaterBytes: section?.highWaterBytes ?? MEMORY_DEFAULTS.highWaterBytes,
    retireGraceDays: section?.retireGraceDays ?? MEMORY_DEFAULTS.retireGraceDays,
    archiveRetentionDays: section?.archiveRetentionDays ?? MEMORY_DEFAULTS.archiveRetentionDays,
    archiveMaxBytes: section?.archiveMaxBytes ?? MEMORY_DEFAULTS.archiveMaxBytes,
    backgroundIntakeWhenBlocked: section?.backgroundIntakeWhenBlocked ?? "queue",
    semanticRetirement: section?.semanticRetirement ?? false
  }
}

/** Rules between keys (config paths relative to the file), for configProblems. */
export const memoryPolicyProblems = (section: MemorySection | undefined): ReadonlyArray<{ path: string; reason: string }> => {
  if (section?.lowWaterItems === undefined) return []
  const { highWaterItems, lowWaterItems } = memoryPolicy(section)
  if (lowWaterItems < highWaterItems) return []
  const high = section.highWaterItems === undefined ? `${highWaterItems}, the default` : String(highWaterItems)
  return [{ path: "memory.lowWaterItems", reason: `must be below memory.highWaterItems (${high}), actual ${lowWaterItems}: consolidation aims at low water after crossing high water` }]
}

export type MemoryPressure = "ok" | "high"

/** A tier is under pressure once it holds more items or more bytes than its high water marks allow. */
export const memoryPressure = (policy: MemoryPolicy, size: { readonly items: number; readonly bytes: number }): MemoryPressure =>
  size.items > policy.highWaterItems || size.bytes > policy.highWaterBytes ? "high" : "ok"

/**
 * A tier's state for `akm memory status` (spec 06 §8.2): ok under both high
 * water marks; over-high when consolidation is required and can reach low
 * water; reducing while a consolidation proposal waits for review; blocked
 * when no safe reduction reaches low water (background intake queues, R-MEM-2).
 */
export type TierState = "ok" | "over-high" | "reducing" | "blocked"

export const tierState = (
  policy: MemoryPolicy,
  size: { readonly items: number; readonly bytes: number },
  after: { readonly items: number; readonly bytes: number },
  pending: boolean
): TierState => {
  if (memoryPressure(policy, size) === "ok") return "ok"
  if (pending) return "reducing"
  return after.items <= policy.lowWaterItems && after.bytes <= policy.highWaterBytes ? "over-high" : "blocked"
}
