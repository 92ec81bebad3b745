import type { PlatformError } from "@effect/platform/Error"

const REASONS: Readonly<Record<string, string>> = {
  NotFound: "no such file or directory",
  PermissionDenied: "permission denied",
  AlreadyExists: "it already exists",
  Busy: "it is busy",
  TimedOut: "timed out",
  InvalidData: "the data is invalid",
  UnexpectedEof: "the file ended early",
  BadResource: "not a file akm can read"
}

/**
 * A file-system failure as a user reads it. PlatformError's message names the
 * Effect call and repeats the path (`NotFound: FileSystem.stat (/x): ENOENT…`),
 * which is internal text; callers already name the file.
 */
export const fileProblem = (error: PlatformError): string =>
  error._tag === "SystemError" ? (REASONS[error.reason] ?? "it cannot be read") : "it cannot be read"
