import { Data } from "effect"

/**
 * Errors shared across services and programs. Each carries the fields a user
 * needs plus a hint they can act on (R-ARCH-4). Exit codes are assigned in one
 * place: src/cli/exitCodes.ts.
 */

/** Bad flag, bad value, bad ref: the user can fix the command line (exit 2). */
export class UsageError extends Data.TaggedError("UsageError")<{
  readonly message: string
  readonly hint: string
}> {}

/** An unknown ref, bundle or proposal id (exit 1). */
export class NotFound extends Data.TaggedError("NotFound")<{
  readonly what: string
  readonly name: string
  readonly message: string
  readonly hint: string
}> {}

/** An invalid or unreadable configuration file or value (exit 78). */
export class ConfigInvalid extends Data.TaggedError("ConfigInvalid")<{
  readonly file: string
  readonly path: string
  readonly reason: string
  readonly hint: string
}> {
  override get message(): string {
    return `${this.file}: ${this.path === "" ? "" : `at ${this.path}: `}${this.reason}`
  }
}

/** A requested change conflicts with current state (exists already, refused by policy) (exit 1). */
export class Conflict extends Data.TaggedError("Conflict")<{
  readonly message: string
  readonly hint: string
}> {}

/** The workspace could not be read or written (permissions, disk, a db refusing to open). */
export class WorkspaceUnavailable extends Data.TaggedError("WorkspaceUnavailable")<{
  readonly path: string
  readonly reason: string
  readonly hint: string
  /**
   * Set when SQLite says the file itself is damaged (not a database, malformed):
   * what a user would lose without it. The CLI reports these as `database_damaged`.
   */
  readonly damaged?: { readonly loses: string } | undefined
  /** Set when a database server (PostgreSQL) could not be reached: reported as `database_unreachable`. */
  readonly unreachable?: { readonly server: string } | undefined
}> {
  override get message(): string {
    return `${this.path}: ${this.reason}`
  }
}

/** A database whose recorded migrations are newer than this akm knows (R-DB-1). */
export class DatabaseTooNew extends Data.TaggedError("DatabaseTooNew")<{
  readonly path: string
  readonly unknown: ReadonlyArray<string>
  readonly hint: string
}> {
  override get message(): string {
    return `${this.path} has migrations this akm does not know (${this.unknown.join(", ")}); it was written by a newer akm`
  }
}
