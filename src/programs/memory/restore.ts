import { Clock, Effect } from "effect"
import { Conflict } from "../../domain/Errors.js"
import { MemoryArchive } from "../../services/MemoryArchive.js"
import { MemoryStore } from "../../services/MemoryStore.js"
import { indexBundles } from "../indexBundles.js"
import { proposeAndApply } from "../proposals/direct.js"
import { archivedEntry } from "./archived.js"
import { readTier } from "./tiers.js"

export interface RestoreResult {
  readonly ref: string
  readonly bundle: string
  readonly path: string
  /** "proposal": the file is written back through a proposal; "overlay": a read-only bundle's item is shown again. */
  readonly mode: "proposal" | "overlay"
  readonly proposalId?: string | undefined
  readonly status: "restored" | "pending"
  readonly hint?: string | undefined
}

/**
 * `akm memory restore <ref>` (spec 06 §8.5): the archived bytes back in their
 * bundle through a proposal (mechanical: the exact bytes that were there), or
 * for a read-only bundle the overlay lifted. A blob deleted by hand fails
 * clearly and changes nothing.
 */
export const memoryRestore = Effect.fn("memory.restore")(function* (ref: string) {
  const entry = yield* archivedEntry(ref)
  const at = new Date(yield* Clock.currentTimeMillis).toISOString()
  const store = yield* MemoryStore
  if (entry.overlay) {
    yield* store.markRestored(entry.id, at, undefined)
    // The rows keep the retired mark until the bundle is read again.
    yield* indexBundles({ bundle: entry.bundle, full: true })
    return { ref: entry.ref, bundle: entry.bundle, path: entry.path, mode: "overlay", status: "restored" } satisfies RestoreResult as RestoreResult
  }
  const bytes = yield* (yield* MemoryArchive).read(entry.digest)
  if (bytes === undefined) {
    return yield* new Conflict({
      message: `cannot restore ${entry.ref}: its archived bytes (archive/blobs/sha256/${entry.digest}) are missing or damaged`,
      hint: "the blob was deleted or changed outside akm; restore it from a backup of $AKM_DATA_DIR/archive, or recover the file from version control"
    })
  }
  const tier = yield* readTier(entry.bundle)
  if (tier === undefined) return yield* new Conflict({ message: `cannot restore ${entry.ref}: bundle '${entry.bundle}' is gone or has no memory tier`, hint: "add the bundle again, then retry" })
  const made = yield* proposeAndApply({
    title: `Restore memory ${entry.ref}`,
    recipe: "memory-restore",
    changeClass: "mechanical",
    changes: tier.facet.render({ bundle: entry.bundle, retire: [], write: [{ path: entry.path, text: new TextDecoder().decode(bytes), beforeHash: null }] }),
    evidence: [{ kind: "user", id: "memory-restore", hash: entry.digest, ref: entry.ref }],
    generator: "user",
    bundle: entry.bundle,
    root: tier.info.root
  })
  if (made.status === "accepted") yield* store.markRestored(entry.id, at, made.id)
  return {
    ref: entry.ref,
    bundle: entry.bundle,
    path: made.path,
    mode: "proposal",
    proposalId: made.id,
    status: made.status === "accepted" ? "restored" : "pending",
    ...(made.hint === undefined ? {} : { hint: made.hint })
  } satisfies RestoreResult as RestoreResult
})
