import * as ValidationError from "@effect/cli/ValidationError"
import { Cause, Option } from "effect"
import { redact, type Redacted } from "../domain/Redaction.js"

/** Exit codes of spec 09 §2. */
export const ExitCode = {
  ok: 0,
  failure: 1,
  usage: 2,
  attention: 4,
  internal: 70,
  config: 78,
  interrupted: 130,
  terminated: 143
} as const

export interface ErrorReport {
  readonly exit: number
  readonly code: string
  readonly message: string
  readonly hint: string
}

/** A report as it may be printed: message and hint have passed the redactor (an error may quote a ref, a file or a value). */
export interface RedactedReport extends Omit<ErrorReport, "message" | "hint"> {
  readonly message: Redacted
  readonly hint: Redacted
}

/**
 * Redacts a report's message and hint: with the workspace's Redactor snapshot
 * where a command has one (its known values too), else the patterns only.
 */
export const redactReport = (report: ErrorReport, redactText: (text: string) => Redacted = (text) => redact(text)): RedactedReport => ({
  ...report,
  message: redactText(report.message),
  hint: redactText(report.hint)
})

const REPORT_URL = "https://github.com/akm-dev/akm/issues"

/**
 * The one place where typed errors become exit codes and the error envelope
 * (R-ARCH-4). Add a row when a new error type appears; anything unlisted is a
 * bug (70).
 */
const table: Record<string, { readonly exit: number; readonly code: string }> = {
  UsageError: { exit: ExitCode.usage, code: "usage" },
  RefInvalid: { exit: ExitCode.usage, code: "usage" },
  BundleNameInvalid: { exit: ExitCode.usage, code: "usage" },
  SourceKindUnsupported: { exit: ExitCode.usage, code: "usage" },
  NotFound: { exit: ExitCode.failure, code: "not_found" },
  RefNotFound: { exit: ExitCode.failure, code: "not_found" },
  Conflict: { exit: ExitCode.failure, code: "conflict" },
  MaterializeFailed: { exit: ExitCode.failure, code: "materialize_failed" },
  RegistryUnavailable: { exit: ExitCode.failure, code: "registry_unavailable" },
  TransactionRefused: { exit: ExitCode.failure, code: "transaction_refused" },
  StaleBeforeHash: { exit: ExitCode.failure, code: "stale_before_hash" },
  ValidationFailed: { exit: ExitCode.failure, code: "validation_failed" },
  ItemUnreadable: { exit: ExitCode.failure, code: "unreadable" },
  GitHistoryUnreadable: { exit: ExitCode.failure, code: "git_history_unreadable" },
  ExportNotBound: { exit: ExitCode.failure, code: "not_bound" },
  ExportChanged: { exit: ExitCode.failure, code: "export_changed" },
  DangerousEnvRefused: { exit: ExitCode.usage, code: "dangerous_env" },
  EnvKeyMissing: { exit: ExitCode.failure, code: "env_incomplete" },
  EnvFileInvalid: { exit: ExitCode.failure, code: "env_invalid" },
  ValueUnreadable: { exit: ExitCode.failure, code: "value_unreadable" },
  ChildNotStarted: { exit: ExitCode.failure, code: "not_started" },
  WorkflowInvalid: { exit: ExitCode.failure, code: "workflow_invalid" },
  WorkflowPlanTampered: { exit: ExitCode.failure, code: "plan_tampered" },
  CredentialUnavailable: { exit: ExitCode.failure, code: "credential_unavailable" },
  ConfigInvalid: { exit: ExitCode.config, code: "config" },
  DatabaseTooNew: { exit: ExitCode.config, code: "database_too_new" },
  WorkspaceUnavailable: { exit: ExitCode.config, code: "workspace_unavailable" }
}

const field = (error: unknown, key: string): string | undefined => {
  const value = (error as Record<string, unknown> | null)?.[key]
  return typeof value === "string" ? value : undefined
}

/**
 * A last guard for text meant for people: @effect/platform's error prefix
 * (`NotFound: FileSystem.stat (/x): `) and requirement ids (`(R-AD-4)`) are
 * internal and never reach users; programs should already word their errors.
 */
export const withoutInternals = (text: string): string =>
  text.replace(/\b[A-Za-z]+: [A-Z][A-Za-z]+\.[a-zA-Z]+ \([^)]*\): /g, "").replace(/ ?\(R-[A-Z]+-\d+\)/g, "")

/** A damaged state.db or logs.db, or an unreachable database server, is still the workspace's fault (78), under a code of its own. */
const workspaceCode = (error: { readonly damaged?: unknown; readonly unreachable?: unknown }): string =>
  error.damaged !== undefined ? "database_damaged" : error.unreachable !== undefined ? "database_unreachable" : "workspace_unavailable"

/** Maps one typed failure to its report. */
export const reportError = (error: unknown): ErrorReport => {
  if (ValidationError.isValidationError(error)) {
    return { exit: ExitCode.usage, code: "usage", message: validationMessage(error), hint: "run `akm --help` or `akm <command> --help`" }
  }
  const tag = field(error, "_tag")
  const row = tag === undefined ? undefined : table[tag]
  if (row === undefined) {
    return {
      exit: ExitCode.internal,
      code: "internal",
      message: error instanceof Error ? error.message : String(error),
      hint: `this is a bug in akm; please report it at ${REPORT_URL} (rerun with --verbose for details)`
    }
  }
  return {
    exit: row.exit,
    code: tag === "WorkspaceUnavailable" ? workspaceCode(error as { readonly damaged?: unknown; readonly unreachable?: unknown }) : row.code,
    message: withoutInternals((error instanceof Error ? error.message : undefined) || field(error, "message") || tag!),
    hint: withoutInternals(field(error, "hint") ?? "")
  }
}

const validationMessage = (error: ValidationError.ValidationError): string => {
  if (ValidationError.isCommandMismatch(error)) return "unknown command"
  if (ValidationError.isMissingSubcommand(error)) return "a subcommand is required"
  if (ValidationError.isCorrectedFlag(error)) return "unknown flag"
  return "invalid command line"
}

/**
 * @effect/cli's own parse messages, as plain English sentences: they reach
 * users only for what argvCheck.ts leaves to it (a missing argument or
 * required option, an extra argument).
 */
export const usageMessage = (detail: string): string =>
  detail
    .split("\n")
    .map((line) => line.trim())
    .filter((line) => line !== "")
    // Each line is one complaint (two missing options are two lines), worded on its own.
    .map((line) => {
      const text = line
        .replace(/^Expected to find option: '([^']+)'/, "missing required option $1")
        .replace(/^Missing argument </, "missing argument <")
        .replace(/^Received unknown argument: '([^']*)'/, "unexpected argument '$1'")
        .replace(/is not a integer/g, "is not an integer")
      return text.charAt(0).toLowerCase() + text.slice(1)
    })
    .join("; ")

/** Maps how the run ended to its report: failures, defects (70) and interruption (130). */
export const reportCause = (cause: Cause.Cause<unknown>): ErrorReport => {
  const failure = Cause.failureOption(cause)
  if (Option.isSome(failure)) return reportError(failure.value)
  if (Cause.isInterruptedOnly(cause)) {
    return { exit: ExitCode.interrupted, code: "interrupted", message: "interrupted", hint: "the work is resumable; run the command again" }
  }
  const defect = Cause.dieOption(cause)
  const error = Option.getOrUndefined(defect)
  return {
    exit: ExitCode.internal,
    code: "internal",
    message: error instanceof Error ? error.message : String(error ?? Cause.pretty(cause)),
    hint: `this is a bug in akm; please report it at ${REPORT_URL} (rerun with --verbose for details)`
  }
}
