import { Clock, Effect, Either } from "effect"
import { intervalMillis, type AkmConfig, type BundleConfig } from "../../domain/Config.js"
import { UsageError, type WorkspaceUnavailable } from "../../domain/Errors.js"
import type { LockedBundle, LockFile } from "../../domain/Lock.js"
import { Adapters, type AdapterInfo } from "../../services/Adapters.js"
import { IndexStore } from "../../services/IndexStore.js"
import { Materializer, type MaterializeDiagnostic } from "../../services/Materializer.js"
import { Progress } from "../../services/Progress.js"
import { recordEvent } from "../events.js"
import { WorkspaceConfig } from "../../services/WorkspaceConfig.js"
import { indexBundles } from "../indexBundles.js"
import { refuseWorkspaceInside, resolveAdapter } from "./checks.js"
import { lockEntry, reportDiagnostics } from "./lockEntry.js"
import { bundleNotFound } from "./show.js"

export interface BundleUpdateInput {
  /** One bundle by name; or `all`, or `due`. Exactly one of the three. */
  readonly name?: string | undefined
  readonly all?: boolean | undefined
  /** Only bundles whose `refresh:` interval has elapsed since their last successful update. */
  readonly due?: boolean | undefined
  /** Re-fetch and reindex even when the source reports no change. */
  readonly force?: boolean | undefined
}

export interface UpdatedBundle {
  readonly name: string
  /** The revision before (null for folders and bundles that were not installed). */
  readonly from: string | null
  readonly to: string | null
  readonly root: string
  readonly items: number
  readonly partial?: boolean
  readonly warnings: ReadonlyArray<MaterializeDiagnostic>
}

export interface UpToDateBundle {
  readonly name: string
  readonly revision: string | null
}

export interface FailedBundle {
  readonly name: string
  readonly reason: string
  readonly hint?: string
  /** The revision still in use (R-BUN-2); null when there was none. */
  readonly kept: string | null
}

export interface BundleUpdateResult {
  readonly updated: ReadonlyArray<UpdatedBundle>
  readonly upToDate: ReadonlyArray<UpToDateBundle>
  readonly failed: ReadonlyArray<FailedBundle>
  /** --due: bundles with a refresh interval that has not elapsed yet, and when it will. */
  readonly notDue: ReadonlyArray<{ readonly name: string; readonly dueAt: string }>
  readonly ok: boolean
}

type Outcome =
  | { readonly _tag: "updated"; readonly value: UpdatedBundle }
  | { readonly _tag: "upToDate"; readonly value: UpToDateBundle }
  | { readonly _tag: "failed"; readonly value: FailedBundle }

/** When a bundle with `refresh:` is next due: its last successful update plus the interval; a bundle never installed is due now. */
export const dueAt = (bundle: BundleConfig, locked: LockedBundle | undefined): number | undefined => {
  if (bundle.refresh === undefined) return undefined
  if (locked === undefined) return Number.NEGATIVE_INFINITY
  return Date.parse(locked.updatedAt) + intervalMillis(bundle.refresh)
}

const selectBundles = (input: BundleUpdateInput, config: AkmConfig, lock: LockFile, now: number) => {
  const configured = Object.keys(config.bundles)
  const chosen = [input.name !== undefined, input.all === true, input.due === true].filter(Boolean).length
  if (chosen === 0) {
    return Effect.fail(new UsageError({ message: "say which bundles to update", hint: "akm bundle update <name>, --all, or --due (bundles whose refresh interval has elapsed)" }))
  }
  if (chosen > 1) return Effect.fail(new UsageError({ message: "give one of <name>, --all and --due", hint: "--due already picks among all bundles" }))
  if (input.name !== undefined) {
    return config.bundles[input.name] === undefined ? Effect.fail(bundleNotFound(input.name, configured)) : Effect.succeed({ names: [input.name], notDue: [] })
  }
  if (input.all === true) return Effect.succeed({ names: configured, notDue: [] })
  const names: Array<string> = []
  const notDue: Array<{ name: string; dueAt: string }> = []
  for (const name of configured) {
    const at = dueAt(config.bundles[name]!, lock.bundles[name])
    if (at === undefined) continue
    if (at <= now) names.push(name)
    else notDue.push({ name, dueAt: new Date(at).toISOString() })
  }
  return Effect.succeed({ names, notDue })
}

const withoutStale = ({ stale: _stale, ...entry }: LockedBundle): LockedBundle => entry

/**
 * `akm bundle update [<name>|--all|--due] [--force]` (spec 02 §1): asks the
 * materializer for each bundle's current revision. A new revision (or root)
 * is recorded in the lock, reindexed, and older cache revisions are pruned.
 * A failure keeps the last good revision installed, indexed and searchable,
 * marks it stale in the lock and the index, and the others carry on (R-BUN-2);
 * the caller exits 1 when any failed. Nothing from a bundle runs (R-BUN-1).
 */
export const bundleUpdate = Effect.fn("bundle.update")(function* (input: BundleUpdateInput) {
  const workspace = yield* WorkspaceConfig
  const materializer = yield* Materializer
  const adapters = yield* Adapters
  const index = yield* IndexStore
  const progress = yield* Progress
  const config = yield* workspace.read
  const { names, notDue } = yield* selectBundles(input, config, yield* workspace.readLock, yield* Clock.currentTimeMillis)
  const force = input.force === true
  const isoNow = Effect.map(Clock.currentTimeMillis, (t) => new Date(t).toISOString())

  const setLock = (name: string, f: (current: LockedBundle | undefined) => LockedBundle) =>
    workspace.updateLock((lock) => ({ ...lock, bundles: { ...lock.bundles, [name]: f(lock.bundles[name]) } }))

  /** R-BUN-2: the installed revision stays; the lock and the index say why it is stale (keeping the first `since`). */
  const fail = (name: string, previous: LockedBundle | undefined, reason: string, hint: string | undefined) =>
    Effect.gen(function* () {
      const now = yield* isoNow
      if (previous !== undefined) {
        yield* setLock(name, (current) => {
          const entry = current ?? previous
          return { ...entry, stale: { since: entry.stale?.since ?? now, reason } }
        })
        yield* index.markStale(name, `update failed: ${reason}`)
      }
      yield* progress.warn(`error: ${name}: ${reason}${previous === undefined ? "" : `; keeping ${previous.revision ?? previous.root}`}`)
      yield* recordEvent("bundle.update-failed", name, { reason })
      return { _tag: "failed", value: { name, reason, ...(hint === undefined || hint === "" ? {} : { hint }), kept: previous?.revision ?? null } } satisfies Outcome
    })

  const updateOne = (name: string, bundle: BundleConfig) =>
    Effect.gen(function* () {
      const previous = (yield* workspace.readLock).bundles[name]
      const task = `update ${name}`
      yield* progress.update(task, 0)
      const fetched = yield* Effect.either(
        Effect.gen(function* () {
          const materialized = yield* materializer.materialize(name, bundle.source, { previous, force })
          yield* refuseWorkspaceInside(workspace.paths, name, materialized.root, { cached: bundle.source.kind !== "filesystem" })
          return materialized
        })
      )
      if (fetched._tag === "Left") {
        yield* progress.done(task, "failed")
        const error = fetched.left
        return yield* fail(name, previous, "reason" in error ? error.reason : error.message, error.hint)
      }
      const materialized = fetched.right
      yield* reportDiagnostics(progress, name, materialized.diagnostics)
      const now = yield* isoNow
      const changed = previous === undefined || force || materialized.revision !== previous.revision || materialized.root !== previous.root

      if (!changed) {
        yield* setLock(name, (current) => ({ ...withoutStale(current ?? previous), updatedAt: now }))
        // Incremental (a stat walk): picks up edits in a folder and clears an index stale mark.
        const reindexed = (yield* indexBundles({ bundle: name })).bundles[0]
        yield* progress.done(task, "up to date")
        const edited = bundle.source.kind === "filesystem" && reindexed !== undefined && reindexed.added + reindexed.updated + reindexed.removed > 0
        return edited
          ? { _tag: "updated", value: { name, from: null, to: null, root: materialized.root, items: reindexed.added + reindexed.updated + reindexed.unchanged, warnings: materialized.diagnostics ?? [] } } satisfies Outcome
          : { _tag: "upToDate", value: { name, revision: previous.revision } } satisfies Outcome
      }

      // The adapter recorded at add time is kept (R-WS-7); a bundle written into config.yaml by hand gets one now.
      const detect: Effect.Effect<AdapterInfo, UsageError | WorkspaceUnavailable> = resolveAdapter(adapters, bundle.adapter, materialized.root)
      const chosen = previous !== undefined ? Either.right(previous.adapter.id) : yield* Effect.either(Effect.map(detect, (a) => a.id))
      if (Either.isLeft(chosen)) {
        if (bundle.source.kind !== "filesystem") yield* materializer.discard(name, bundle.source).pipe(Effect.ignore)
        yield* progress.done(task, "failed")
        return yield* fail(name, previous, chosen.left.message, chosen.left.hint)
      }
      const adapter = { id: chosen.right, version: adapters.get(chosen.right)?.version ?? previous?.adapter.version ?? "unknown" }
      yield* setLock(name, () => lockEntry(bundle.source, materialized, adapter, previous?.installedAt ?? now, now))
      // A new root is a full rescan: the manifest's stat data (npm packs stamp every file 1985) cannot tell old copies from new ones.
      const reindexed = (yield* indexBundles({ bundle: name, full: force || previous?.root !== materialized.root })).bundles[0]
      if (reindexed?.status === "stale" && previous !== undefined && previous.root !== materialized.root) {
        // The new revision cannot be indexed: go back to the last good one, whose rows the index kept.
        yield* setLock(name, () => previous)
        yield* materializer.prune(name, bundle.source, previous.root).pipe(Effect.ignore)
        yield* progress.done(task, "failed")
        return yield* fail(name, previous, `revision ${materialized.revision ?? materialized.root} could not be indexed: ${reindexed.reason ?? "the scan failed"}`, "check the bundle's files with `akm lint`, or pin an earlier revision")
      }
      yield* materializer.prune(name, bundle.source, materialized.root).pipe(
        Effect.catchAll((e) => progress.warn(`warning: ${name}: old cache revisions were not removed: ${e.reason}`))
      )
      yield* recordEvent("bundle.updated", name, { from: previous?.revision ?? null, to: materialized.revision })
      yield* progress.done(task, materialized.revision ?? "updated")
      return {
        _tag: "updated",
        value: {
          name,
          from: previous?.revision ?? null,
          to: materialized.revision,
          root: materialized.root,
          items: reindexed === undefined ? 0 : reindexed.added + reindexed.updated + reindexed.unchanged,
          ...(materialized.partial === true ? { partial: true } : {}),
          warnings: materialized.diagnostics ?? []
        }
      } satisfies Outcome
    })

  const outcomes: Array<Outcome> = []
  for (const name of names) outcomes.push(yield* updateOne(name, config.bundles[name]!))
  const failed = outcomes.flatMap((o) => (o._tag === "failed" ? [o.value] : []))
  return {
    updated: outcomes.flatMap((o) => (o._tag === "updated" ? [o.value] : [])),
    upToDate: outcomes.flatMap((o) => (o._tag === "upToDate" ? [o.value] : [])),
    failed,
    notDue,
    ok: failed.length === 0
  } satisfies BundleUpdateResult
})
