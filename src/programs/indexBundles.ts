import { Clock, Data, Effect, Either, Option } from "effect"
import type { BundleAdapter, FileMeta } from "../domain/Adapter.js"
import { countBySeverity, type Diagnostic } from "../domain/Diagnostic.js"
import type { PersistSummary } from "../domain/IndexDocument.js"
import { reusableItems, sameFile } from "../domain/ItemReuse.js"
import { BundleFiles, takeCarried, type ValidatedCounts } from "../services/BundleFiles.js"
import { Embeddings } from "../services/Embeddings.js"
import { IndexStore, type BundleManifest, type DiagnosticCounts, type PersistEnd } from "../services/IndexStore.js"
import { Progress } from "../services/Progress.js"
import { UsageLog } from "../services/UsageLog.js"
import { WorkspaceConfig } from "../services/WorkspaceConfig.js"
import { UsageError } from "../domain/Errors.js"
import { bundleNotFound } from "./bundle/show.js"
import { collectSecretValues } from "./redactorValues.js"
import { resolveBundle, SCAN_BATCH, scanStreamed, type ScanSummary } from "./scan.js"
import { plural } from "../domain/Plural.js"
import { MemoryStore } from "../services/MemoryStore.js"

export interface IndexInput {
  /** One bundle; default every configured bundle. */
  readonly bundle?: string | undefined
  /** Rescan every bundle, ignoring the manifest. */
  readonly full?: boolean | undefined
  /** Report what would change; write nothing. */
  readonly dryRun?: boolean | undefined
  /**
   * Team mode (storage.kind postgres): also remove from the shared index the
   * bundles this server does not configure. Without it they are left alone
   * (another server's bundles); with SQLite they always go. Whole runs only.
   */
  readonly prune?: boolean | undefined
}

/**
 * Fail with RescanNeeded, before anything is written, instead of scanning a
 * bundle or marking it stale: the start-up fast path of `akm index`
 * (cli/fast/index.ts, decision 0045) carries no scan and hands such runs to
 * the full CLI.
 */
interface RunMode extends IndexInput {
  readonly onlyUnchanged: boolean
}

/** A bundle must be scanned (or marked stale) and the run was asked not to (indexUnchanged). */
export class RescanNeeded extends Data.TaggedError("RescanNeeded")<{ readonly bundle: string; readonly reason: string }> {}

/**
 * indexed: rescanned and persisted; unchanged: every file as the manifest
 * recorded it, nothing read; stale: the old rows are kept (missing or
 * unreadable root, failed scan); planned: what --dry-run would write.
 */
export type BundleIndexStatus = "indexed" | "unchanged" | "stale" | "planned"

export interface BundleIndexReport extends PersistSummary {
  readonly adapter: string | null
  readonly status: BundleIndexStatus
  /** Why the bundle was rescanned, or why its rows are stale. */
  readonly reason?: string | undefined
  /** Files the walk found. */
  readonly files: number
  /** Findings of this scan (unchanged bundles: of the scan that produced their rows). */
  readonly diagnostics: DiagnosticCounts
  readonly durationMs: number
}

export interface IndexTotals {
  readonly added: number
  readonly updated: number
  readonly removed: number
  readonly unchanged: number
  /** Items in the index for these bundles after the run. */
  readonly items: number
  readonly diagnostics: DiagnosticCounts
}

export interface IndexResult {
  readonly bundles: ReadonlyArray<BundleIndexReport>
  /** Bundles that were in the index but are no longer configured; their rows were deleted. */
  readonly removedBundles: ReadonlyArray<string>
  /**
   * Team mode: bundles in the shared index that this server does not
   * configure, left alone (another server indexes them); `prune` removes them.
   */
  readonly keptBundles: ReadonlyArray<string>
  readonly totals: IndexTotals
  readonly dryRun: boolean
  readonly durationMs: number
}

const NO_DIAGNOSTICS: DiagnosticCounts = { error: 0, warning: 0, info: 0 }

/**
 * Why a bundle must be rescanned, or undefined when the walk matches the
 * manifest exactly (same adapter and version, same paths, sizes and mtimes).
 * Reuse is per bundle: any change rescans the whole bundle, so changed
 * coupling files (a wiki's schema.md, .gitignore) and adapter upgrades need no
 * special case (R-IDX-2).
 */
export const rescanReason = (
  manifest: BundleManifest | undefined,
  adapter: BundleAdapter,
  writable: boolean,
  files: ReadonlyArray<FileMeta>,
  full: boolean,
  root?: string
): string | undefined => {
  if (full) return "--full"
  if (manifest === undefined) return "not indexed yet"
  if (manifest.staleReason !== undefined) return `stale: ${manifest.staleReason}`
  // Stat-equal files under another root are other files (npm packs stamp every file 1985): read them all.
  if (root !== undefined && manifest.root !== undefined && manifest.root !== root) return `root moved to ${root}`
  if (manifest.adapter.id !== adapter.id || manifest.adapter.version !== adapter.version) return `adapter ${manifest.adapter.id}@${manifest.adapter.version} → ${adapter.id}@${adapter.version}`
  if (manifest.writable !== writable) return writable ? "became writable" : "became read-only"
  const changed = (adapter.couplingFiles ?? []).find((coupling) => {
    const before = manifest.files.find((f) => f.path === coupling)
    const now = files.find((f) => f.path === coupling)
    return before === undefined ? now !== undefined : now === undefined || !sameFile(now, before)
  })
  if (changed !== undefined) return `coupling file ${changed} changed`
  if (files.length !== manifest.files.length || files.some((f, i) => !sameFile(f, manifest.files[i]!))) return FILES_CHANGED
  return undefined
}

const FILES_CHANGED = "files changed"

/** What an absolute path under `root` starts with: a document's file less this is the bundle-relative path the manifest keys (kept items, 20,000 on a write's refresh, need no join). */
const rootPrefix = (root: string) => (root.endsWith("/") ? root : `${root}/`)

/** The manifest's file list: every walked file; a file that is an item on its own carries that item's hash (keyed by bundle-relative path). */
const manifestFiles = (files: ReadonlyArray<FileMeta>, single: ReadonlyMap<string, string>) =>
  files.map((f) => ({ path: f.path, size: f.size, mtimeMs: f.mtimeMs, hash: single.get(f.path) }))

const reasonOf = (error: { readonly message: string }): string => error.message

/**
 * The bundle's findings after a write, by severity, from the index run the
 * write's validation compared with (decision 0061): that run's counts, less
 * its walk's, plus what the validation found the changes add or remove,
 * plus this listing's walk findings. Undefined unless the validation counted
 * over that very run and the run recorded its walk's share.
 */
const countsAfterWrite = (manifest: BundleManifest, counted: ValidatedCounts | undefined, walk: ReadonlyArray<Diagnostic>): DiagnosticCounts | undefined => {
  const stored = manifest.diagnostics
  const storedWalk = manifest.walkDiagnostics
  if (counted === undefined || counted.indexedAt !== manifest.indexedAt || stored === undefined || storedWalk === undefined) return undefined
  const now = countBySeverity(walk)
  const counts = {
    error: stored.error - storedWalk.error + counted.delta.error + now.error,
    warning: stored.warning - storedWalk.warning + counted.delta.warning + now.warning,
    info: stored.info - storedWalk.info + counted.delta.info + now.info
  }
  // Counts that do not add up say the stored ones were not that run's: count afresh.
  return counts.error < 0 || counts.warning < 0 || counts.info < 0 ? undefined : counts
}

/**
 * Whether every file in `read` (bundle-relative; directory probes end in "/")
 * is still as `listing` has it, or still missing: a file changed outside akm
 * since the validation read it means the validation's counts may not be this
 * tree's (decision 0061).
 */
const readsHold = (files: BundleFiles["Type"], root: string, listing: ReadonlyArray<FileMeta>, read: ReadonlyArray<string>) =>
  Effect.sync(() => {
    if (files.stillListed === undefined) return false
    const wanted = new Set(read.filter((p) => !p.endsWith("/")))
    const listed: Array<FileMeta> = []
    for (const f of listing) if (wanted.delete(f.path)) listed.push(f)
    return files.stillListed(root, listed, [...wanted])
  })

/**
 * One bundle: walk (stat only) → compare with the manifest → skip, or scan
 * and persist in one transaction, the documents streamed from the scan to the
 * store in bounded batches (spec 10 §2: memory does not grow with the bundle).
 */
const indexBundle = (name: string, input: RunMode, now: string) =>
  Effect.gen(function* () {
    const started = yield* Clock.currentTimeMillis
    const store = yield* IndexStore
    const files = yield* BundleFiles
    const progress = yield* Progress
    const dryRun = input.dryRun === true
    const task = `index ${name}`
    const elapsed = Effect.map(Clock.currentTimeMillis, (t) => t - started)
    const manifest = yield* store.manifest(name)
    const counts = yield* store.counts
    const kept = { bundle: name, added: 0, updated: 0, removed: 0, unchanged: counts[name] ?? 0 }

    const stale = (adapter: string | null, reason: string, walked = 0) =>
      Effect.gen(function* () {
        if (input.onlyUnchanged) return yield* new RescanNeeded({ bundle: name, reason })
        if (!dryRun) yield* store.markStale(name, reason)
        yield* progress.warn(`warning: ${name}: ${reason}; its ${kept.unchanged} indexed items are kept (stale)`)
        return { ...kept, adapter, status: "stale", reason, files: walked, diagnostics: manifest?.diagnostics ?? NO_DIAGNOSTICS, durationMs: yield* elapsed } satisfies BundleIndexReport
      })

    const resolved = yield* Effect.either(resolveBundle(name))
    if (resolved._tag === "Left") return yield* stale(null, reasonOf(resolved.left))
    const { info, adapter } = resolved.right
    yield* progress.update(task, 0)
    // One walk serves the manifest comparison and the scan. After an accept, the listing its engine walked
    // under the lease and relisted past its write stands in, while the index run is the one that validation saw.
    const walkOptions = { includeHidden: adapter.includeHidden ?? false }
    const carried = yield* takeCarried(info.root, walkOptions)
    const carriedHolds = carried !== undefined && carried.indexedAt !== undefined && carried.indexedAt === manifest?.indexedAt
    const walked = carriedHolds ? Either.right(carried.result) : yield* Effect.either(files.walk(info.root, walkOptions))
    if (walked._tag === "Left") return yield* stale(adapter.id, `cannot read ${info.root}: ${walked.left.reason}`)
    // An unreadable root lists no files; that is not an empty bundle (R-IDX-3).
    const unreadable = walked.right.diagnostics.find((d) => d.code === "unreadable-directory" && d.path === ".")
    if (unreadable !== undefined) return yield* stale(adapter.id, `cannot read ${info.root}: ${unreadable.message}`)
    const total = walked.right.files.length
    // With no manifest and no rows there is nothing to compare.
    const firstRun = manifest === undefined && kept.unchanged === 0
    let reason = input.full === true ? "--full" : "not indexed yet"
    if (!firstRun) {
      const why = rescanReason(manifest, adapter, info.writable, walked.right.files, input.full === true, info.root)
      if (why === undefined) {
        yield* progress.done(task, "unchanged")
        return { ...kept, adapter: adapter.id, status: "unchanged", files: total, diagnostics: manifest?.diagnostics ?? NO_DIAGNOSTICS, durationMs: yield* elapsed } satisfies BundleIndexReport
      }
      reason = why
    }
    if (input.onlyUnchanged) return yield* new RescanNeeded({ bundle: name, reason })
    yield* progress.update(task, 0, total)

    // Hashes of single-file items for the manifest, by bundle-relative path: all that is kept of a document once its
    // batch is written. Kept items' paths are relative already; a document's file is absolute (under `prefix`).
    const single = new Map<string, string>()
    const prefix = rootPrefix(info.root)
    let scanned = 0
    // Only files changed: items whose inputs are all unchanged keep their rows unread (R-IDX-2).
    const reuse = reason === FILES_CHANGED && manifest !== undefined ? reusableItems(manifest, walked.right.files, yield* store.itemInputs(name)) : undefined
    // The validation's counts, over the listing carried from it and the run it compared with (decision 0061).
    const counted = reuse !== undefined && carriedHolds ? countsAfterWrite(manifest, carried.counted, walked.right.diagnostics) : undefined
    const persisted = yield* store.persistStreamed(
      name,
      (sink) =>
        Effect.map(
          scanStreamed(
            info,
            adapter,
            walked.right,
            (documents, inputs) => {
              for (const d of documents) {
                if (d.files.length === 1 && d.files[0]!.startsWith(prefix)) single.set(d.files[0]!.slice(prefix.length), d.hash)
                scanned += d.files.length
              }
              return Effect.zipRight(sink.write(documents, inputs), progress.update(task, Math.min(scanned, total), total))
            },
            SCAN_BATCH,
            reuse === undefined ? undefined : {
              reusable: reuse.reusable,
              counted: counted === undefined ? undefined : { counts: counted, confirm: (read) => readsHold(files, info.root, walked.right.files, read) },
              keep: (refs) => {
                for (const ref of refs) {
                  const files = reuse.files(ref)
                  const hash = files.length === 1 ? reuse.hash(files[0]!) : undefined
                  if (hash !== undefined) single.set(files[0]!, hash)
                  scanned += files.length
                }
                return Effect.zipRight(sink.keep(refs), progress.update(task, Math.min(scanned, total), total))
              }
            }
          ),
          (scan): PersistEnd<ScanSummary> =>
            // A scan that failed as a whole writes nothing: the old rows stay (R-AD-8, R-IDX-3).
            !scan.complete ? { _tag: "Discard", value: scan } : {
              _tag: "Commit",
              value: scan,
              manifest: {
                adapter: { id: adapter.id, version: adapter.version },
                indexedAt: now,
                root: info.root,
                files: manifestFiles(scan.files, single),
                writable: info.writable,
                diagnostics: scan.counts ?? countBySeverity(scan.diagnostics),
                walkDiagnostics: countBySeverity(walked.right.diagnostics)
              }
            }
        ),
      { dryRun }
    )
    const scan = persisted.value
    if (persisted.summary === undefined) {
      const failure = scan.diagnostics.find((d) => d.code === "adapter-failed")?.message ?? "the scan failed"
      return yield* stale(adapter.id, failure, scan.files.length)
    }
    const found = scan.counts ?? countBySeverity(scan.diagnostics)
    yield* progress.done(task, `${plural(scan.items, "item")}, ${plural(found.error + found.warning + found.info, "diagnostic")}`)
    return {
      ...persisted.summary,
      adapter: adapter.id,
      status: dryRun ? "planned" : "indexed",
      reason,
      files: scan.files.length,
      diagnostics: found,
      durationMs: yield* elapsed
    } satisfies BundleIndexReport
  })

const sum = (reports: ReadonlyArray<BundleIndexReport>): IndexTotals => {
  const totals = { added: 0, updated: 0, removed: 0, unchanged: 0, items: 0, diagnostics: { error: 0, warning: 0, info: 0 } }
  for (const r of reports) {
    totals.added += r.added
    totals.updated += r.updated
    totals.removed += r.removed
    totals.unchanged += r.unchanged
    totals.items += r.added + r.updated + r.unchanged
    totals.diagnostics.error += r.diagnostics.error
    totals.diagnostics.warning += r.diagnostics.warning
    totals.diagnostics.info += r.diagnostics.info
  }
  return totals
}

/**
 * `akm index [--bundle B] [--full] [--dry-run]` (spec 04 §2): brings index.db
 * up to date with every configured bundle. Read-only with respect to bundles
 * (R-IDX-1), incremental through the manifest (R-IDX-2), one transaction per
 * bundle with failure isolation (R-IDX-3), one writer at a time (R-IDX-6).
 * Utilities are copied from state.db so search needs no join (spec 04 §6).
 */
const indexRun = Effect.fn("index")(function* (input: RunMode) {
  const started = yield* Clock.currentTimeMillis
  const workspace = yield* WorkspaceConfig
  const store = yield* IndexStore
  const config = yield* workspace.read
  const configured = Object.keys(config.bundles)
  // The flags first: --prune with any --bundle is a usage error (2), whether or not that bundle exists.
  if (input.bundle !== undefined && input.prune === true) {
    return yield* new UsageError({ message: "--prune applies to a run over every bundle, not to one --bundle", hint: "run `akm index --prune` without --bundle" })
  }
  if (input.bundle !== undefined && !configured.includes(input.bundle)) return yield* bundleNotFound(input.bundle, configured)
  const dryRun = input.dryRun === true
  // One index shared by several servers (decision 0042): a bundle only another server configures is not an orphan.
  const shared = config.storage?.kind === "postgres"

  const run = Effect.gen(function* () {
    const now = new Date(yield* Clock.currentTimeMillis).toISOString()
    const names = input.bundle === undefined ? configured : [input.bundle]
    const reports: Array<BundleIndexReport> = []
    for (const name of names) reports.push(yield* indexBundle(name, input, now))
    // Rows of bundles no longer configured (config edited by hand, an interrupted remove) go on a whole run;
    // in team mode only when asked (--prune): the shared index also holds the bundles of the other servers.
    const unconfigured = input.bundle === undefined ? (yield* store.bundles).map((b) => b.bundle).filter((b) => !configured.includes(b)) : []
    const prune = !shared || input.prune === true
    const orphans = prune ? unconfigured : []
    const kept = prune ? [] : unconfigured
    if (!dryRun) {
      // A failed update keeps the last good revision, which indexes cleanly; search must still say it is stale (R-BUN-2, R-WEB-7).
      const lock = yield* workspace.readLock
      for (const report of reports) {
        const failed = lock.bundles[report.bundle]?.stale
        if (failed !== undefined && report.status !== "stale") yield* store.markStale(report.bundle, `last update failed: ${failed.reason}`)
      }
      for (const orphan of orphans) yield* store.removeBundle(orphan)
      yield* store.replaceUtilities(yield* (yield* UsageLog).utilities)
      // Workspace retirement overlays (R-MEM-5): a rescan projects a hidden memory afresh, so the marks are laid again;
      // a row whose bytes changed upstream no longer matches its overlay and stays visible.
      const memories = yield* Effect.serviceOption(MemoryStore)
      if (Option.isSome(memories)) {
        const overlays = (yield* memories.value.list({ states: ["retired", "quarantined"] })).filter((e) => e.overlay && names.includes(e.bundle))
        yield* store.retireOverlay(overlays.map((e) => ({ ref: e.ref, hash: e.digest })))
      }
      if (input.bundle === undefined) yield* store.recordIndexRun(now)
      // The redactor's known values: digests of every .env*, env and secret value, so later writes never read a bundle (spec 08 §2.1).
      yield* collectSecretValues(names, configured)
      // Hybrid search (R-SRCH-4): vectors for items whose content has none yet; a no-op unless search.embeddings is set,
      // and never a failure of the index (R-IDX-5).
      const embeddings = yield* Effect.serviceOption(Embeddings)
      if (Option.isSome(embeddings) && embeddings.value.refresh !== undefined) yield* embeddings.value.refresh
    }
    return { reports, orphans, kept }
  })
  const { reports, orphans, kept } = yield* (dryRun ? run : store.withWriteLease(run))
  return {
    bundles: reports,
    removedBundles: orphans,
    keptBundles: kept,
    totals: sum(reports),
    dryRun,
    durationMs: (yield* Clock.currentTimeMillis) - started
  } satisfies IndexResult
})

/** `akm index [--bundle B] [--full] [--dry-run]`: indexRun, scanning what changed. */
export const indexBundles = (input: IndexInput = {}) =>
  // Only a run with onlyUnchanged fails with RescanNeeded.
  indexRun({ ...input, onlyUnchanged: false }).pipe(Effect.catchTag("RescanNeeded", (e) => Effect.die(e)))

/**
 * indexBundles when no bundle needs a scan, or RescanNeeded before anything is
 * written (the no-op fast path of `akm index`, cli/fast/index.ts).
 */
export const indexUnchanged = (input: IndexInput = {}) => indexRun({ ...input, onlyUnchanged: true })
