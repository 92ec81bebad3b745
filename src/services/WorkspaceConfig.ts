import { Context, Effect } from "effect"
import { isWritable, type AkmConfig } from "../domain/Config.js"
import type { ConfigInvalid, WorkspaceUnavailable } from "../domain/Errors.js"
import type { LockFile } from "../domain/Lock.js"
import type { WorkspacePaths } from "../domain/Paths.js"

/** A key path into config.yaml, e.g. ["bundles", "notes", "writable"]. */
export type ConfigPath = ReadonlyArray<string>

/** Edits applied to the YAML document in place, so comments and key order survive (R-WS-5). */
export interface ConfigEditor {
  readonly get: (path: ConfigPath) => unknown
  readonly set: (path: ConfigPath, value: unknown) => void
  readonly delete: (path: ConfigPath) => void
  /** Renames the last key of `path` where it stands, keeping its value, position and comments (`bundle rename`). */
  readonly renameKey: (path: ConfigPath, to: string) => void
}

/**
 * The workspace: resolved paths, the desired config (config.yaml) and the
 * lock of what is installed (akm.lock). Config and lock writes are atomic and
 * serialised under the workspace mutex.
 */
export class WorkspaceConfig extends Context.Tag("akm/WorkspaceConfig")<WorkspaceConfig, {
  readonly paths: WorkspacePaths
  /** Creates the workspace directories (idempotent); refuses $DATA/$CACHE inside a bundle root (R-WS-1). */
  readonly ensureDirs: Effect.Effect<void, WorkspaceUnavailable | ConfigInvalid>
  /** The validated config; a missing file is the empty config. */
  readonly read: Effect.Effect<AkmConfig, ConfigInvalid>
  /** The raw text of config.yaml, or undefined when it does not exist. */
  readonly readText: Effect.Effect<string | undefined, ConfigInvalid>
  /** Applies edits, validates the result and writes it atomically; nothing is written when invalid. */
  readonly update: (edit: (editor: ConfigEditor) => void) => Effect.Effect<AkmConfig, ConfigInvalid | WorkspaceUnavailable>
  readonly readLock: Effect.Effect<LockFile, ConfigInvalid>
  /** Rewrites akm.lock atomically (temp file, fsync, rename) under the workspace mutex. */
  readonly updateLock: (f: (lock: LockFile) => LockFile) => Effect.Effect<LockFile, ConfigInvalid | WorkspaceUnavailable>
}>() {}

/**
 * Whether each configured bundle is writable, as config.yaml says now (read
 * is cached per process); an unreadable config names none, so callers keep
 * what they knew.
 */
export const configuredWritable = (workspace: WorkspaceConfig["Type"]): Effect.Effect<ReadonlyMap<string, boolean>> =>
  workspace.read.pipe(
    Effect.map((config): ReadonlyMap<string, boolean> => new Map(Object.entries(config.bundles).map(([name, bundle]) => [name, isWritable(bundle)]))),
    Effect.orElseSucceed((): ReadonlyMap<string, boolean> => new Map())
  )
