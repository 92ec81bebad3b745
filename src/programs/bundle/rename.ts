import { Effect, Either, Option } from "effect"
import { Conflict, UsageError } from "../../domain/Errors.js"
import { validateNewBundleName } from "../../domain/Ref.js"
import { IndexStore } from "../../services/IndexStore.js"
import { Materializer } from "../../services/Materializer.js"
import { EvidenceStore } from "../../services/EvidenceStore.js"
import { MemoryStore } from "../../services/MemoryStore.js"
import { Bindings } from "../../services/Bindings.js"
import { ProposalStore } from "../../services/ProposalStore.js"
import { StateStore } from "../../services/StateStore.js"
import { recordEvent } from "../events.js"
import { UsageLog } from "../../services/UsageLog.js"
import { WorkspaceConfig } from "../../services/WorkspaceConfig.js"
import { bundleNotFound } from "./show.js"
import { shellCommand } from "../../domain/ShellQuote.js"

export interface BundleRenameResult {
  readonly from: string
  readonly to: string
  readonly root: string | null
  readonly defaultBundle: string | null
}

/**
 * `akm bundle rename <old> <new>` (R-REF-6): every ref-keyed row in state.db
 * and index.db, the cache copy, the lock and config.yaml move to the new name.
 *
 * The three files (state.db, index.db, config/lock) cannot share one
 * transaction, so the steps are ordered for recovery instead, and each is
 * idempotent: repeating `bundle rename old new` after a crash finishes the job.
 *   1. the cache copy moves first: it is the step most likely to fail for an
 *      ordinary reason (permissions), and when it does nothing else changed;
 *   2. state.db: events, usage/feedback/utility, proposals, evidence — four
 *      BEGIN IMMEDIATE transactions, each a no-op once nothing carries the old name;
 *   3. index.db (disposable: at worst `akm index` rebuilds it);
 *   4. akm.lock, then config.yaml last: config is what names the bundle, so
 *      until it changes, the old name still works and the command can be repeated.
 */
export const bundleRename = Effect.fn("bundle.rename")(function* (from: string, to: string) {
  const workspace = yield* WorkspaceConfig
  yield* Either.match(validateNewBundleName(to), {
    onLeft: (e) => Effect.fail(new UsageError({ message: `invalid bundle name '${to}': ${e.reason}`, hint: e.hint })),
    onRight: Effect.succeed
  })
  const config = yield* workspace.read
  const bundle = config.bundles[from]
  if (bundle === undefined) return yield* bundleNotFound(from, Object.keys(config.bundles))
  if (from === to) return yield* new UsageError({ message: `the bundle is already named '${to}'`, hint: "give a different new name" })
  if (config.bundles[to] !== undefined) {
    return yield* new Conflict({ message: `a bundle named '${to}' already exists`, hint: `choose another name, or \`${shellCommand("akm bundle remove", to)}\` first` })
  }

  // A repeated run after a crash may find the lock entry already under the new name.
  const lock = yield* workspace.readLock
  const locked = lock.bundles[from] ?? lock.bundles[to]
  const root = locked === undefined ? null : yield* (yield* Materializer).rename(from, to, bundle.source, locked.root)

  yield* (yield* StateStore).renameBundle(from, to)
  yield* (yield* UsageLog).renameBundle(from, to)
  yield* (yield* ProposalStore).renameBundle(from, to)
  yield* (yield* EvidenceStore).renameBundle(from, to)
  yield* (yield* Bindings).renameBundle(from, to)
  // The memory archive's rows (origin bundle and ref); optional so a program without the lifecycle still renames.
  const memories = yield* Effect.serviceOption(MemoryStore)
  if (Option.isSome(memories)) yield* memories.value.renameBundle(from, to)
  const index = yield* IndexStore
  yield* index.withWriteLease(index.renameBundle(from, to))

  if (locked !== undefined && root !== null) {
    yield* workspace.updateLock((current) => {
      const { [from]: _old, ...rest } = current.bundles
      return { ...current, bundles: { ...rest, [to]: { ...locked, root } } }
    })
  }
  const updated = yield* workspace.update((editor) => {
    editor.renameKey(["bundles", from], to)
    if (config.defaultBundle === from) editor.set(["defaultBundle"], to)
  })
  yield* recordEvent("bundle.renamed", to, { from })
  return { from, to, root, defaultBundle: updated.defaultBundle ?? null } satisfies BundleRenameResult
})
