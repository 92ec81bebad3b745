import { Context, Effect, Exit, FiberRef } from "effect"
import type { BundleInfo, FileMeta, FileUnreadable, ProbeContext, ValidateContext } from "../domain/Adapter.js"
import type { Diagnostic } from "../domain/Diagnostic.js"
import type { WorkspaceUnavailable } from "../domain/Errors.js"
import type { FileChange } from "../domain/FileChange.js"

export interface WalkOptions {
  /** Include dot-files and dot-directories (except .git). */
  readonly includeHidden: boolean
}

export interface WalkResult {
  /** Sorted by path; bundle-relative POSIX, NFC. */
  readonly files: ReadonlyArray<FileMeta>
  /** Skipped symlinks, oversized files, unreadable directories… (never fatal). */
  readonly diagnostics: ReadonlyArray<Diagnostic>
}

export interface ContentHash {
  readonly hash: string
  readonly bytes: number
}

/**
 * Read-only access to bundle roots: the core walk of spec 03 §1.1
 * (gitignore-aware, realpath containment, size and encoding guards), the
 * contexts adapters read through, and content hashes. It never writes
 * (R-AD-7, R-IDX-1).
 */
export class BundleFiles extends Context.Tag("akm/BundleFiles")<BundleFiles, {
  readonly walk: (root: string, options: WalkOptions) => Effect.Effect<WalkResult, WorkspaceUnavailable>
  /** A ValidateContext over the files on disk, with pending changes overlaid when given (R-AD-1). */
  readonly context: (bundle: BundleInfo, files: ReadonlyArray<FileMeta>, overlay?: ReadonlyArray<FileChange>) => ValidateContext
  readonly probeContext: (root: string) => ProbeContext
  /**
   * UTF-8 text of one bundle-relative file, read directly (akm show, R-SHOW-1):
   * its real path must lie inside the real root (R-AD-4); size and encoding guards as for the walk.
   */
  readonly readText: (root: string, path: string) => Effect.Effect<string, FileUnreadable>
  /** sha256 over the bytes of the given files (in the given order) and their total size. */
  /**
   * With `ctx`, files that context already read are not read again: the scan
   * hashes an item from the bytes its adapter just parsed.
   */
  readonly hash: (root: string, paths: ReadonlyArray<string>, ctx?: ValidateContext) => Effect.Effect<ContentHash, WorkspaceUnavailable>
  /**
   * A walk's listing brought up to date after this process wrote `paths`
   * (bundle-relative) under the lease: those paths stat-ed again, nothing
   * else walked. Undefined when the answer could differ from a walk's
   * (a .gitignore written, a link, an oversized or special file, a name
   * the walk reported on): then the caller walks.
   */
  readonly relist?: (root: string, options: WalkOptions, walked: WalkResult, paths: ReadonlyArray<string>) => WalkResult | undefined
  /**
   * Whether each of `files` (a listing's entries) and each of `absent`
   * (bundle-relative paths a listing does not hold) is still so on disk:
   * the same size and time without following links, or still missing.
   * Undefined from implementations that cannot tell: the caller assumes not.
   */
  readonly stillListed?: (root: string, files: ReadonlyArray<FileMeta>, absent: ReadonlyArray<string>) => boolean
}>() {}

/**
 * Walks shared within one step of a write (issue 13 item 3): inside
 * `shareWalks`, a walk of a root with the same options returns the listing
 * the first one made, so authoring a change and evaluating it look at one
 * listing instead of walking the tree twice. Never around a write or what
 * follows one (the engine's check under the lease, the index refresh): those
 * run `unshared`, which also forgets the shared listings.
 */
export const SharedWalks = FiberRef.unsafeMake<Map<string, WalkResult> | undefined>(undefined)

/** The memo key of one walk. */
export const sharedWalkKey = (root: string, options: WalkOptions): string => `${options.includeHidden ? "h" : "-"}${root}`

/** Runs `self` with walks shared (the outer sharing when there already is one). */
export const shareWalks = <A, E, R>(self: Effect.Effect<A, E, R>): Effect.Effect<A, E, R> =>
  Effect.flatMap(FiberRef.get(SharedWalks), (memo) => (memo !== undefined ? self : Effect.suspend(() => Effect.locally(self, SharedWalks, new Map()))))

/** Runs `self` (which may write) with fresh walks, then forgets the shared listings: the tree may have changed. */
export const unshared = <A, E, R>(self: Effect.Effect<A, E, R>): Effect.Effect<A, E, R> =>
  Effect.flatMap(FiberRef.get(SharedWalks), (memo) =>
    memo === undefined ? self : Effect.ensuring(Effect.locally(self, SharedWalks, undefined), Effect.sync(() => memo.clear())))

/**
 * Set inside `Transaction.hold` (decision 0049): the shared listings were
 * walked under the workspace mutation lease, which this fiber still holds,
 * so no akm writer can have written since. The engine's check under the
 * lease may then take them (`proposeAndApply` runs it shared); the engine
 * forgets them before it writes anything (`forgetSharedWalks`).
 */
export const WalksUnderLease = FiberRef.unsafeMake<boolean>(false)

/** Forgets the shared listings, if any: called by a writer right before it changes a bundle's files. */
export const forgetSharedWalks: Effect.Effect<void> = Effect.flatMap(FiberRef.get(SharedWalks), (memo) => Effect.sync(() => memo?.clear()))

/**
 * `unshared` for a step that usually writes nothing (recovery at the start of a
 * write, which finds no journal): the shared listings are kept when it
 * succeeds and `wroteNothing` holds for its answer, and forgotten otherwise.
 */
export const unsharedUnless = <A, E, R>(self: Effect.Effect<A, E, R>, wroteNothing: (a: A) => boolean): Effect.Effect<A, E, R> =>
  Effect.flatMap(FiberRef.get(SharedWalks), (memo) =>
    memo === undefined ? self : Effect.onExit(Effect.locally(self, SharedWalks, undefined), (exit) =>
      Effect.sync(() => {
        if (!(Exit.isSuccess(exit) && wroteNothing(exit.value))) memo.clear()
      })))

/**
 * A listing carried from a write's validation to its index refresh (issue 13
 * item 3, decision 0038): the engine's validation walks the tree under the
 * lease and the engine relists what it wrote, so the refresh need not walk
 * again. `written` is set once the engine has relisted; `indexedAt` is the
 * index run the validation saw — the refresh walks when the run changed.
 */
export interface CarriedListing {
  readonly result: WalkResult
  readonly indexedAt: string | undefined
  readonly written: boolean
  /** What the validation counted of the bundle's findings, when its tree before the changes was the index run's. */
  readonly counted?: ValidatedCounts | undefined
}

/**
 * A write's validation's answer for the index refresh (decision 0061): the
 * bundle's findings after the changes less those before, by severity, the
 * walk's left out. Made only when the tree before the changes is the one
 * index run `indexedAt` read (every listed file as its manifest has it), so
 * that run's counts plus this difference are the counts after the write.
 */
export interface ValidatedCounts {
  readonly indexedAt: string
  readonly delta: { readonly error: number; readonly warning: number; readonly info: number }
}

/** Listings carried within one accept, by `sharedWalkKey`; undefined outside `carryListings`. */
export const CarriedListings = FiberRef.unsafeMake<Map<string, CarriedListing> | undefined>(undefined)

/**
 * Runs `self` (an apply and its index refresh) with listings carried from the
 * engine to the refresh; inside an outer `carryListings` (a write that
 * refreshes after letting the lease go, decision 0049) it carries into that one.
 */
export const carryListings = <A, E, R>(self: Effect.Effect<A, E, R>): Effect.Effect<A, E, R> =>
  Effect.flatMap(FiberRef.get(CarriedListings), (outer) => (outer !== undefined ? self : Effect.suspend(() => Effect.locally(self, CarriedListings, new Map()))))

/** Takes (and forgets) the listing carried for a root, when the engine relisted it after its write. */
export const takeCarried = (root: string, options: WalkOptions): Effect.Effect<CarriedListing | undefined> =>
  Effect.map(FiberRef.get(CarriedListings), (carried) => {
    const key = sharedWalkKey(root, options)
    const found = carried?.get(key)
    carried?.delete(key)
    return found?.written === true ? found : undefined
  })
