import { Context, type Effect } from "effect"
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
}>() {}
