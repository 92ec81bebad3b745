import { FileSystem } from "@effect/platform/FileSystem"
import { Clock, Effect, Option } from "effect"
import { intervalMillis, isWritable, type BundleConfig } from "../domain/Config.js"
import { memoryPolicy, memoryPressure, type MemoryPolicy, type MemoryPressure } from "../domain/MemoryPolicy.js"
import { WorkspaceUnavailable } from "../domain/Errors.js"
import { IndexStore, type DiagnosticCounts, type TypeSize } from "../services/IndexStore.js"
import { LogStore } from "../services/LogStore.js"
import { ProposalStore } from "../services/ProposalStore.js"
import { TransactionJournals } from "../services/TransactionJournals.js"
import { WorkspaceConfig } from "../services/WorkspaceConfig.js"
import { isNewBundleName, suggestBundleName } from "../domain/Ref.js"
import { shellCommand } from "../domain/ShellQuote.js"
import { plural } from "../domain/Plural.js"
import { INTAKE_ORIGIN, queuedIntake } from "./memory/status.js"
import { EvidenceStore } from "../services/EvidenceStore.js"
import type { StorageStatus } from "../services/StorageBackend.js"
import { storageStatus } from "./storageStatus.js"

/** Interrupted transactions recovery will not act on: every writer refuses until each is resolved. */
const damagedJournals = Effect.map(Effect.flatMap(TransactionJournals, (journals) => journals.inspect), (damaged) =>
  damaged.map((d): Attention => ({
    code: "damaged-journal",
    message: `transaction ${d.id} was interrupted and cannot be recovered automatically: ${d.reason}; akm writes nothing until it is resolved`,
    hint: `run \`akm proposal recover ${d.id} --rollback\` (restore the files from the backups) or \`--forward\` (finish it)`
  })))

/** One thing that needs a person: health exits 4 while any is listed. */
export interface Attention {
  readonly code: "database-damaged" | "index-missing" | "not-indexed" | "stale" | "refresh-overdue" | "not-installed" | "orphaned" | "diagnostics" | "memory-pressure" | "memory-queued" | "bundle-name" | "damaged-journal" | "database-unreachable" | "unconfigured-shared"
  readonly bundle?: string | undefined
  readonly message: string
  readonly hint: string
}

/** What the bundle table's status column says: "ok", or what the attention list says about the bundle. */
export type BundleStatus = "ok" | "not installed" | "not indexed" | "stale" | "errors" | "refresh overdue" | "memory pressure" | "name"

/** Status words of the attention codes that name one bundle, most urgent first. */
const STATUS_OF: ReadonlyArray<readonly [Attention["code"], BundleStatus]> = [
  ["not-installed", "not installed"],
  ["not-indexed", "not indexed"],
  ["stale", "stale"],
  ["diagnostics", "errors"],
  ["refresh-overdue", "refresh overdue"],
  ["memory-pressure", "memory pressure"],
  ["memory-queued", "memory pressure"],
  ["bundle-name", "name"]
]

/**
 * A bundle's status from the attention list alone, so the two never disagree:
 * "ok" when nothing there names it (an empty index names no bundle: its
 * never-indexed bundles say "not indexed").
 */
export const bundleStatus = (bundle: string, attention: ReadonlyArray<Attention>, indexedAt: string | null): ReadonlyArray<BundleStatus> => {
  const codes = new Set(attention.filter((a) => a.bundle === bundle).map((a) => a.code))
  if (indexedAt === null && attention.some((a) => a.code === "index-missing")) codes.add("not-indexed")
  const found = STATUS_OF.filter(([code]) => codes.has(code)).map(([, status]) => status)
  return found.length === 0 ? ["ok"] : found
}

export interface BundleHealth {
  readonly bundle: string
  /** What needs attention about this bundle (from `attention`), or ["ok"]. */
  readonly status: ReadonlyArray<BundleStatus>
  readonly adapter: string | null
  readonly items: number
  /** When the bundle was last indexed; null = never. */
  readonly indexedAt: string | null
  /** Why the bundle's rows are from an earlier run (root missing, scan failed); null when current. */
  readonly stale: string | null
  readonly refresh: {
    readonly interval: string | null
    /** When the bundle was last installed or updated (akm.lock). */
    readonly updatedAt: string | null
    readonly overdue: boolean
  }
  /** Findings of the scan behind the bundle's rows, by severity; null when it was never indexed. */
  readonly diagnostics: DiagnosticCounts | null
  /** The bundle's memory tier against the water marks; null when it holds no memory items. */
  readonly memory: MemoryHealth | null
}

/** A memory tier's size (the index's items of type `memory`) against config.yaml's `memory` policy (spec 06 §8.2). */
export interface MemoryHealth {
  readonly items: number
  readonly bytes: number
  readonly highWaterItems: number
  readonly lowWaterItems: number
  readonly highWaterBytes: number
  /** "high" past either high water mark: consolidation is required. */
  readonly pressure: MemoryPressure
}

export interface DatabaseHealth {
  readonly name: "state.db" | "index.db" | "logs.db"
  readonly path: string
  /** The file plus its write-ahead log; null when the file does not exist. */
  readonly bytes: number | null
  /** SQLite reports the file damaged (state.db and logs.db; a damaged index.db is rebuilt instead). */
  readonly damaged: boolean
}

export interface HealthResult {
  readonly ok: boolean
  readonly attention: ReadonlyArray<Attention>
  readonly bundles: ReadonlyArray<BundleHealth>
  readonly index: { readonly lastIndexed: string | null }
  readonly databases: ReadonlyArray<DatabaseHealth>
  /** Where StateStore, UsageLog, ProposalStore and LogStore live: sqlite, or a PostgreSQL server and whether it answers. */
  readonly storage: StorageStatus
  /** pending is null when state.db (or the PostgreSQL server) cannot be read. */
  readonly proposals: { readonly pending: number | null }
}

/** The item type of memories in every adapter that has them (akm `memories/`, OKF `type: memory`, project `memory/`). */
const MEMORY_TYPE = "memory"

/**
 * Crossing high water makes consolidation required (spec 06 §8.2): the hint
 * names `akm memory consolidate`, and what to do when cleanup is not enough.
 */
const memoryAttention = (name: string, bundle: BundleConfig, memory: MemoryHealth): Attention => {
  const crossed: ReadonlyArray<readonly [key: string, mark: number]> = [
    ...(memory.items > memory.highWaterItems ? [["memory.highWaterItems", memory.highWaterItems] as const] : []),
    ...(memory.bytes > memory.highWaterBytes ? [["memory.highWaterBytes", memory.highWaterBytes] as const] : [])
  ]
  const keys = crossed.map(([key]) => key)
  const raise = `raise ${keys.join(" and ")}: \`akm config set ${keys[0]} <n>\``
  const review = `review them with \`${shellCommand("akm search", `${name}//`)} --type memory\``
  return {
    code: "memory-pressure",
    bundle: name,
    message: `bundle '${name}' holds ${plural(memory.items, "memory item")} (${plural(memory.bytes, "byte")}), over ${crossed.map(([key, mark]) => `${key} (${mark})`).join(" and ")}: consolidation is required`,
    hint: isWritable(bundle)
      ? `run \`${shellCommand("akm memory consolidate --bundle", name)}\` (duplicates, expired and superseded memories go to the archive, down toward ${plural(memory.lowWaterItems, "item")}); if \`akm memory status\` then says blocked, ${review} and merge by hand, or ${raise}`
      : `the bundle is read-only here: \`${shellCommand("akm memory consolidate --bundle", name)}\` hides duplicates, expired and superseded memories in this workspace only; ${review}, or ${raise}`
  }
}

/** A bundle whose name predates the naming rule: it works, and a rename makes refs, paths and commands plain. */
export const bundleNameAttention = (name: string): Attention => ({
  code: "bundle-name",
  bundle: name,
  message: `bundle '${name}' has a name outside the naming rule (lowercase letters, digits, '-' and '_'); it still works`,
  hint: `rename it: ${shellCommand("akm bundle rename", name, suggestBundleName(name))}`
})

/** A bundle's memory entry, or null when it holds no memory items. */
const memoryHealth = (policy: MemoryPolicy, size: TypeSize | undefined): MemoryHealth | null =>
  size === undefined || size.items === 0
    ? null
    : {
      items: size.items,
      bytes: size.bytes,
      highWaterItems: policy.highWaterItems,
      lowWaterItems: policy.lowWaterItems,
      highWaterBytes: policy.highWaterBytes,
      pressure: memoryPressure(policy, size)
    }

const isDamaged = (error: unknown): error is WorkspaceUnavailable => error instanceof WorkspaceUnavailable && error.damaged !== undefined
const isUnreachable = (error: unknown): error is WorkspaceUnavailable => error instanceof WorkspaceUnavailable && error.unreachable !== undefined

/** Counting stops here: past it the number only says "many". */
const PENDING_COUNT_LIMIT = 10_000

/** Proposals waiting for review (spec 05); reported, not an attention item: reviewing them is the normal workflow. */
export const pendingProposals = Effect.map(
  Effect.flatMap(ProposalStore, (proposals) => proposals.list({ status: "pending", limit: PENDING_COUNT_LIMIT })),
  (pending) => pending.length
)

/**
 * `akm health` (spec 04 §7): per bundle items, last index time, stale rows,
 * diagnostics by severity (as the last index run recorded them), overdue
 * refreshes, memory tier size against the water marks; database sizes;
 * pending proposals. Reads config, lock and index.db only, never a bundle.
 */
export const health = Effect.fn("health")(function* () {
  const workspace = yield* WorkspaceConfig
  const fs = yield* FileSystem
  const config = yield* workspace.read
  const lock = yield* workspace.readLock
  const now = yield* Clock.currentTimeMillis
  const { paths } = workspace

  const size = (file: string) => fs.stat(file).pipe(Effect.map((stat) => Number(stat.size)), Effect.option, Effect.map(Option.getOrNull))
  const database = (name: DatabaseHealth["name"], file: string) =>
    Effect.gen(function* () {
      const main = yield* size(file)
      const wal = yield* size(`${file}-wal`)
      return { name, path: file, bytes: main === null ? null : main + (wal ?? 0) }
    })
  const attention: Array<Attention> = []
  // state.db and logs.db are durable or kept: damage is reported, never repaired here (R-DB-1).
  const damage: Array<DatabaseHealth["name"]> = []
  // A PostgreSQL server that does not answer is one attention item with the hint, never a crash.
  const unreachable = (message: string, hint: string) => {
    if (!attention.some((a) => a.code === "database-unreachable")) attention.push({ code: "database-unreachable", message, hint })
  }
  const storage = yield* storageStatus
  if (!storage.reachable && storage.problem !== undefined) unreachable(storage.problem.message, storage.problem.hint)
  const probe = <A, E, R>(name: DatabaseHealth["name"], effect: Effect.Effect<A, E, R>) =>
    effect.pipe(
      Effect.map(Option.some),
      Effect.catchIf((error): error is E & WorkspaceUnavailable => isDamaged(error) || isUnreachable(error), (error) =>
        Effect.sync(() => {
          if (error.unreachable !== undefined) unreachable(error.message, error.hint)
          // A database read twice (proposals, then queued intake) is reported once.
          else if (!damage.includes(name)) {
            damage.push(name)
            attention.push({ code: "database-damaged", message: error.message, hint: error.hint })
          }
          return Option.none<A>()
        }))
    )
  // An unreachable server was already waited for (bounded) and listed once.
  const pending = storage.reachable ? yield* probe("state.db", pendingProposals) : Option.none<number>()
  // Only an existing logs.db is read: health does not create one.
  if (yield* fs.exists(paths.logsDb).pipe(Effect.orElseSucceed(() => false))) yield* probe("logs.db", Effect.flatMap(LogStore, (logs) => logs.lines("", { limit: 1 })))
  const databases = [yield* database("state.db", paths.stateDb), yield* database("index.db", paths.indexDb), yield* database("logs.db", paths.logsDb)]
    .map((db) => ({ ...db, damaged: damage.includes(db.name) }))

  const configured = Object.keys(config.bundles)
  const index = yield* IndexStore
  // In team mode the index lives on the same PostgreSQL server: unreachable, it is unknown (already listed), not empty.
  const indexUnknown = !storage.reachable && storage.backend === "postgres"
  const states = indexUnknown ? [] : yield* index.bundles
  const lastIndexed = indexUnknown ? undefined : yield* index.lastIndexed
  const indexEmpty = !indexUnknown && configured.length > 0 && !states.some((state) => state.indexedAt !== undefined)
  if (indexEmpty) attention.push({ code: "index-missing", message: "the index is empty: no bundle has been indexed (or index.db was deleted)", hint: "run `akm index`" })

  const byName = new Map(states.map((state) => [state.bundle, state] as const))
  const policy = memoryPolicy(config.memory)
  const memorySizes = new Map((indexUnknown ? [] : yield* index.typeSizes(MEMORY_TYPE)).map((size) => [size.bundle, size] as const))
  const bundles: Array<Omit<BundleHealth, "status">> = []
  for (const name of configured) {
    const bundle = config.bundles[name]!
    const locked = lock.bundles[name]
    const state = byName.get(name)
    const interval = bundle.refresh ?? null
    const updatedAt = locked?.updatedAt ?? null
    const overdue = interval !== null && updatedAt !== null && now - Date.parse(updatedAt) > intervalMillis(interval)
    if (locked === undefined && bundle.source.kind !== "filesystem") {
      attention.push({ code: "not-installed", bundle: name, message: `bundle '${name}' is configured but not installed`, hint: `run \`${shellCommand("akm bundle remove", name)}\` and add it again` })
    } else if (!indexEmpty && !indexUnknown && state?.indexedAt === undefined) {
      attention.push({ code: "not-indexed", bundle: name, message: `bundle '${name}' has not been indexed`, hint: `run \`${shellCommand("akm index --bundle", name)}\`` })
    }
    if (state?.staleReason !== undefined) {
      attention.push({ code: "stale", bundle: name, message: `bundle '${name}' is stale: ${state.staleReason}`, hint: `fix the cause, then run \`${shellCommand("akm index --bundle", name)}\`` })
    }
    const errors = state?.diagnostics?.error ?? 0
    if (errors > 0) {
      attention.push({ code: "diagnostics", bundle: name, message: `bundle '${name}' has ${errors} error${errors === 1 ? "" : "s"} (items that could not be indexed, or broken native rules)`, hint: `run \`${shellCommand("akm lint --bundle", name)}\`` })
    }
    if (overdue) {
      attention.push({ code: "refresh-overdue", bundle: name, message: `bundle '${name}' was last updated ${updatedAt}, more than ${interval} ago`, hint: `run \`${shellCommand("akm bundle update", name)}\`` })
    }
    // An older name outside spec 01 §5 still loads; health suggests the rename.
    if (!isNewBundleName(name)) attention.push(bundleNameAttention(name))
    const memory = memoryHealth(policy, memorySizes.get(name))
    if (memory?.pressure === "high") attention.push(memoryAttention(name, bundle, memory))
    bundles.push({
      bundle: name,
      adapter: state?.adapter?.id ?? locked?.adapter.id ?? bundle.adapter ?? null,
      items: state?.items ?? 0,
      indexedAt: state?.indexedAt ?? null,
      stale: state?.staleReason ?? null,
      refresh: { interval, updatedAt, overdue },
      diagnostics: state?.diagnostics ?? null,
      memory
    })
  }
  for (const state of states) {
    if (config.bundles[state.bundle] !== undefined) continue
    // Team mode: an index run leaves another server's bundles alone (decision 0042), so this is a difference of configs, not debris.
    attention.push(
      storage.backend === "postgres"
        ? {
          code: "unconfigured-shared",
          bundle: state.bundle,
          message: `the shared index holds ${plural(state.items, "item")} of '${state.bundle}', which this server does not configure: its searches return them`,
          hint: "give every server the same bundles (`akm bundle add`, at the same path on each), or run `akm index --prune` if no server should serve it"
        }
        : { code: "orphaned", bundle: state.bundle, message: `the index still holds ${plural(state.items, "item")} of '${state.bundle}', which is not configured`, hint: "run `akm index` to drop them" }
    )
  }

  // Background intake that waits while a tier is blocked (R-MEM-2): the pressure is unresolved until it is written.
  // (The start-up fast path has no EvidenceStore; the full CLI reports the queue.)
  const evidence = yield* Effect.serviceOption(EvidenceStore)
  const queued = Option.isNone(evidence) ? [] : Option.getOrElse(yield* probe("state.db", Effect.provideService(queuedIntake, EvidenceStore, evidence.value)), () => [])
  for (const name of [...new Set(queued.map((e) => e.origin!.slice(INTAKE_ORIGIN.length)))]) {
    const n = queued.filter((e) => e.origin === `${INTAKE_ORIGIN}${name}`).length
    attention.push({
      code: "memory-queued",
      bundle: name,
      message: `${plural(n, "background memory", "background memories")} for '${name}' wait in state.db: the tier cannot safely reach low water`,
      hint: `run \`${shellCommand("akm memory consolidate --bundle", name)}\`, merge memories by hand, or raise memory.lowWaterItems — the consolidation that unblocks the tier writes them; \`akm evidence list --kind session\` shows what waits`
    })
  }

  attention.push(...(yield* damagedJournals))

  return {
    ok: attention.length === 0,
    attention,
    bundles: bundles.map(({ bundle, ...rest }) => ({ bundle, status: bundleStatus(bundle, attention, rest.indexedAt), ...rest })),
    index: { lastIndexed: lastIndexed ?? null },
    databases,
    storage,
    proposals: { pending: Option.getOrNull(pending) }
  } satisfies HealthResult
})
