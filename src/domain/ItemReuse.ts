import type { FileMeta, ItemPlan } from "./Adapter.js"
import type { ItemInputs } from "./ItemProjection.js"

/** A file as the index manifest remembers it (services/IndexStore ManifestFile, structurally). */
export interface RememberedFile {
  readonly path: string
  readonly size: number
  readonly mtimeMs: number
  readonly hash?: string | undefined
}

export const sameFile = (a: { readonly path: string; readonly size: number; readonly mtimeMs: number }, b: { readonly path: string; readonly size: number; readonly mtimeMs: number }) =>
  a.path === b.path && a.size === b.size && a.mtimeMs === b.mtimeMs

/** Plans are flat records of strings, numbers and string lists; anything deeper is compared as JSON. */
const sameValue = (a: unknown, b: unknown): boolean => {
  if (a === b) return true
  if (Array.isArray(a) && Array.isArray(b)) return a.length === b.length && a.every((x, i) => x === b[i])
  return typeof a === "object" && typeof b === "object" && JSON.stringify(a) === JSON.stringify(b)
}

/** Whether a stored plan is the plan made now (same keys in the same order, same values). */
export const samePlan = (a: ItemPlan, b: ItemPlan): boolean => {
  const keys = Object.keys(a)
  const other = Object.keys(b)
  if (keys.length !== other.length) return false
  return keys.every((k, i) => k === other[i] && sameValue((a as unknown as Record<string, unknown>)[k], (b as unknown as Record<string, unknown>)[k]))
}

/**
 * The plan object a stored item was last found equal to: a write checks the
 * same pairs in its validation and again in its index refresh (the plan is
 * kept per process, decision 0032). Plans are never changed once made.
 */
const confirmedPlan = new WeakMap<ItemInputs, ItemPlan>()

const storedPlanIs = (inputs: ItemInputs, plan: ItemPlan): boolean => {
  if (confirmedPlan.get(inputs) === plan) return true
  if (!samePlan(inputs.plan, plan)) return false
  confirmedPlan.set(inputs, plan)
  return true
}

/**
 * The refs of the stored items that read each path, built once per stored
 * set: a write asks which of 20,000 items read one of a few dirty paths for
 * the tree before and after its change and again in its refresh, and each
 * used to test every item's read list (decision 0038).
 */
const readersBySet = new WeakMap<ReadonlyMap<string, ItemInputs>, ReadonlyMap<string, ReadonlyArray<string>>>()

const readersOf = (stored: ReadonlyMap<string, ItemInputs>): ReadonlyMap<string, ReadonlyArray<string>> => {
  let readers = readersBySet.get(stored)
  if (readers === undefined) {
    const built = new Map<string, Array<string>>()
    for (const [ref, inputs] of stored) {
      for (const p of inputs.read) {
        const refs = built.get(p)
        if (refs === undefined) built.set(p, [ref])
        else refs.push(ref)
      }
    }
    readers = built
    readersBySet.set(stored, readers)
  }
  return readers
}

/** A manifest's files by path, built once per file list (the index keeps the list while its run stands). */
const rememberedBy = new WeakMap<ReadonlyArray<RememberedFile>, ReadonlyMap<string, RememberedFile>>()

const rememberedOf = (files: ReadonlyArray<RememberedFile>): ReadonlyMap<string, RememberedFile> => {
  let byPath = rememberedBy.get(files)
  if (byPath === undefined) {
    byPath = new Map(files.map((f) => [f.path, f] as const))
    rememberedBy.set(files, byPath)
  }
  return byPath
}

/** What else is dirty besides the files whose stat differs from the manifest: a change set's paths. */
export interface PendingChanges {
  /** Bundle-relative paths written or deleted. */
  readonly paths: ReadonlyArray<string>
  /** Paths that come into existence or go away (a file added or removed changes the listing). */
  readonly listed: ReadonlyArray<string>
}

/** "a/b/c.md" → "a/", "a/b/": what a directory probe of an item records (see ItemProjection tracking). */
const ancestors = (file: string): ReadonlyArray<string> => {
  const parts = file.split("/")
  const out: Array<string> = []
  for (let i = 1; i < parts.length; i++) out.push(`${parts.slice(0, i).join("/")}/`)
  return out
}

/**
 * What an incremental scan may keep unread (R-IDX-2): an item planned as
 * before whose stored inputs (every file its projection read or probed) are
 * all unchanged since the manifest, and, when it looked at the whole file
 * list, no file was added or removed anywhere. A file added or removed also
 * dirties its directories, for items that asked whether one exists.
 * `pending` lays a change set over the walk (validation of a proposal): its
 * paths are dirty too. Used by `akm index` and by change validation alike.
 */
export const reusableItems = (manifest: { readonly files: ReadonlyArray<RememberedFile> }, files: ReadonlyArray<FileMeta>, stored: ReadonlyMap<string, ItemInputs>, pending?: PendingChanges) => {
  const before = rememberedOf(manifest.files)
  const dirty = new Set<string>()
  let listingChanged = false
  const listed = (p: string) => {
    listingChanged = true
    for (const dir of ancestors(p)) dirty.add(dir)
  }
  // Listed files the manifest has: when that is every manifest file, none went away and the manifest need not be
  // walked again (a write's refresh of 20,000 files; paths are unique in both lists).
  let remembered = 0
  for (const f of files) {
    const was = before.get(f.path)
    if (was === undefined) listed(f.path)
    else remembered++
    if (was === undefined || !sameFile(f, was)) dirty.add(f.path)
  }
  if (remembered !== manifest.files.length) {
    const now = new Set(files.map((f) => f.path))
    for (const f of manifest.files) {
      if (now.has(f.path)) continue
      dirty.add(f.path)
      listed(f.path)
    }
  }
  // The tree as it is, without the pending changes: what `unchanged` answers.
  const dirtyNow = new Set(dirty)
  const listingChangedNow = listingChanged
  for (const p of pending?.paths ?? []) dirty.add(p)
  for (const p of pending?.listed ?? []) listed(p)
  const reusableIn = (dirtyPaths: ReadonlySet<string>, listingDirty: boolean) => {
    // The items that read a dirty path, from the readers of each (a few paths, not every item's reads).
    const readers = readersOf(stored)
    const touched = new Set<string>()
    for (const p of dirtyPaths) for (const ref of readers.get(p) ?? []) touched.add(ref)
    return (plan: ItemPlan, ref: string): ItemInputs | undefined => {
      const inputs = stored.get(ref)
      if (inputs === undefined || (inputs.listing && listingDirty) || touched.has(ref)) return undefined
      return storedPlanIs(inputs, plan) ? inputs : undefined
    }
  }
  const reusable = reusableIn(dirty, listingChanged)
  return {
    reusable,
    /** Every listed file is as the manifest has it, none added or gone: the tree as it is is the index run's. */
    untouched: dirtyNow.size === 0 && !listingChangedNow,
    /** `reusable` of the tree as it is, the pending changes left out (a change validation's tree before them). */
    unchanged: pending === undefined ? reusable : reusableIn(dirtyNow, listingChangedNow),
    /** A kept item's files (bundle-relative), and a file's hash as the manifest recorded it. */
    files: (ref: string): ReadonlyArray<string> => stored.get(ref)?.plan.files ?? [],
    hash: (file: string): string | undefined => before.get(file)?.hash
  }
}
