import * as Reactivity from "@effect/experimental/Reactivity"
import * as PgClient from "@effect/sql-pg/PgClient"
import { SqlError } from "@effect/sql/SqlError"
import { Duration, Effect, Redacted, Schedule, type Scope } from "effect"
import { WorkspaceUnavailable } from "../../domain/Errors.js"

/**
 * The one way akm reaches PostgreSQL: a pool from a connection URL kept
 * Redacted end to end (spec 01 §6). Errors name the server as `describeUrl`
 * prints it — never the user, password or query options.
 */

export interface PgConnectOptions {
  /** Every connection of the pool uses this schema (`search_path`); tests give each suite a fresh one. */
  readonly schema?: string | undefined
  readonly maxConnections?: number | undefined
}

/** `postgres://host:port/db`: the URL without its user, password and options, for messages and `akm info`. */
export const describeUrl = (url: Redacted.Redacted<string>): string => {
  try {
    const parsed = new URL(Redacted.value(url))
    return `${parsed.protocol}//${parsed.host}${parsed.pathname}`
  } catch {
    return "postgres (an unparsable storage.url)"
  }
}

const CONNECTION_CODES = new Set(["ECONNREFUSED", "ECONNRESET", "ENOTFOUND", "EHOSTUNREACH", "ETIMEDOUT", "EPIPE", "57P01", "57P02", "57P03"])

const causeOf = (error: SqlError): { readonly code?: unknown; readonly message?: unknown } =>
  (typeof error.cause === "object" && error.cause !== null ? error.cause : {}) as { readonly code?: unknown; readonly message?: unknown }

/** The server could not be reached or dropped the connection (not a failed statement). */
export const isConnectionLoss = (error: SqlError): boolean => {
  const code = causeOf(error).code
  return error.message.startsWith("Failed to acquire connection") ||
    error.message === "Connection error" ||
    error.message === "PgClient: Failed to connect" || error.message === "PgClient: Connection timed out" ||
    (typeof code === "string" && (CONNECTION_CODES.has(code) || code.startsWith("08"))) ||
    /Connection terminated/i.test(String(causeOf(error).message ?? ""))
}

/** Failed before any statement ran, or rolled back by the server: the whole unit may run again. */
export const isSafeToRetry = (error: SqlError, write: boolean): boolean => {
  const code = causeOf(error).code
  if (code === "40001" || code === "40P01") return true
  if (!write) return isConnectionLoss(error)
  return error.message.startsWith("Failed to acquire connection") || error.message === "PgClient: Failed to connect" || error.message === "PgClient: Connection timed out"
}

/** Bounded: about 3 s over 5 tries, so a restarting server or a failover is waited out and a dead one is reported. */
export const RETRY_SCHEDULE = Schedule.exponential("100 millis", 2).pipe(Schedule.jittered, Schedule.intersect(Schedule.recurs(4)))

/** The typed error for an unreachable server: `WorkspaceUnavailable` with `unreachable`, reported as `database_unreachable`. */
export const unreachable = (server: string, error: SqlError): WorkspaceUnavailable => {
  const cause = causeOf(error)
  const detail = typeof cause.message === "string" && cause.message !== "" ? cause.message : error.message
  return new WorkspaceUnavailable({
    path: server,
    reason: `the PostgreSQL server is unreachable (${detail.replaceAll(/postgres(?:ql)?:\/\/\S+/g, server)})`,
    hint: "check that the server runs and that storage.url (default env:AKM_DATABASE_URL) points at it",
    unreachable: { server }
  })
}

/** A statement failure as the user sees it: connection loss is `unreachable`, anything else names the server and the reason. */
export const pgFailure = (server: string) => (error: SqlError): WorkspaceUnavailable =>
  isConnectionLoss(error)
    ? unreachable(server, error)
    : new WorkspaceUnavailable({
      path: server,
      reason: `${error.message}: ${String(causeOf(error).message ?? error.cause)}`,
      hint: "run `akm health`; if the problem stays, check the server's log"
    })

const withSchema = (url: string, schema: string | undefined): string => {
  if (schema === undefined) return url
  const parsed = new URL(url)
  parsed.searchParams.set("options", `-c search_path=${schema}`)
  return parsed.toString()
}

/**
 * A connected PgClient, closed with the scope. Connecting is retried on the
 * bounded schedule; a server still unreachable after it is a typed
 * `WorkspaceUnavailable` (`unreachable`), never a crash or a hang.
 */
export const connectPg = (url: Redacted.Redacted<string>, options: PgConnectOptions = {}): Effect.Effect<PgClient.PgClient, WorkspaceUnavailable, Scope.Scope> => {
  const server = describeUrl(url)
  return Effect.suspend(() => PgClient.make({
    url: Redacted.make(withSchema(Redacted.value(url), options.schema)),
    applicationName: "akm",
    connectTimeout: Duration.seconds(5),
    maxConnections: options.maxConnections ?? 10
  })).pipe(
    Effect.provide(Reactivity.layer),
    Effect.retry({ while: isConnectionLoss, schedule: RETRY_SCHEDULE }),
    // pg throws on a malformed URL while building the pool: the configuration's fault, not a defect.
    Effect.catchAllDefect((defect) => Effect.fail(new SqlError({ cause: defect, message: "invalid connection URL" }))),
    Effect.mapError(pgFailure(server))
  )
}
