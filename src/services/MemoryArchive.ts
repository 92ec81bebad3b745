import { Context, type Effect } from "effect"
import type { WorkspaceUnavailable } from "../domain/Errors.js"

/**
 * Retired memory bytes, content-addressed (spec 06 §8.5):
 * `$AKM_DATA_DIR/archive/blobs/sha256/<aa>/<digest>`, files 0600, folders
 * 0700 (the store the transaction engine keeps replaced bytes in). The same
 * bytes retired twice are one blob; state.db says which blobs are memories.
 */
export class MemoryArchive extends Context.Tag("akm/MemoryArchive")<MemoryArchive, {
  /** Stores bytes; returns their sha256 (hex). Idempotent. */
  readonly put: (bytes: Uint8Array) => Effect.Effect<{ readonly digest: string; readonly bytes: number }, WorkspaceUnavailable>
  /** The bytes, or undefined when the blob is gone (deleted by hand) or damaged (its bytes no longer hash to the name). */
  readonly read: (digest: string) => Effect.Effect<Uint8Array | undefined, WorkspaceUnavailable>
  readonly exists: (digest: string) => Effect.Effect<boolean, WorkspaceUnavailable>
  readonly remove: (digest: string) => Effect.Effect<void, WorkspaceUnavailable>
}>() {}
