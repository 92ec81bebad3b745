import { Context, type Effect } from "effect"
import type { WorkspaceUnavailable } from "../domain/Errors.js"

/** Where a value for `env set` / `secret set` comes from: never argv (spec 07 §4). */
export type ValueSource =
  | { readonly _tag: "stdin" }
  | { readonly _tag: "file"; readonly path: string }
  | { readonly _tag: "env"; readonly name: string }

/** A value source that cannot be read (a missing file, an unset variable, over the cap): names the source, never bytes. */
export class ValueUnreadable {
  readonly _tag = "ValueUnreadable"
  constructor(readonly message: string, readonly hint: string) {}
}

/**
 * The bytes of env and secret files, outside the read-only bundle walk:
 * `env run` reads an env file's values, `env set` / `secret set` replace one
 * file atomically (temp file + fsync + rename, mode 0600) under the workspace
 * mutation lease, and `env export` writes a 0600 file. Nothing here logs or
 * returns a value except to the caller that asked.
 */
export class EnvFiles extends Context.Tag("akm/EnvFiles")<EnvFiles, {
  /** The bytes of a bundle-relative file, undefined when it does not exist; refuses a path escaping the root. */
  readonly read: (root: string, path: string) => Effect.Effect<Uint8Array | undefined, WorkspaceUnavailable>
  /**
   * Replaces (or creates) one bundle-relative file with `bytes`, mode 0600,
   * atomically and under the workspace mutation lease; `edit` gets the current
   * bytes (undefined when missing) under that lease and returns the new ones.
   */
  readonly update: <E>(root: string, path: string, edit: (current: Uint8Array | undefined) => Effect.Effect<Uint8Array, E>) => Effect.Effect<Uint8Array, E | WorkspaceUnavailable>
  /** Writes a file outside any bundle (env export), mode 0600, atomically. */
  readonly writePrivate: (file: string, bytes: Uint8Array) => Effect.Effect<void, WorkspaceUnavailable>
  /** Reads a value from stdin, a file or an environment variable, at most `maxBytes`. */
  readonly readValue: (source: ValueSource, maxBytes: number) => Effect.Effect<Uint8Array, ValueUnreadable>
}>() {}
