import { randomBytes } from "node:crypto"
import * as fs from "node:fs"
import * as os from "node:os"
import * as path from "node:path"
import { Clock, Duration, Effect, FiberRef, Schedule } from "effect"
import { WorkspaceUnavailable } from "../../../domain/Errors.js"
import { isProcessAlive as isAlive } from "../processAlive.js"

/**
 * The one cross-process lock of akm (spec 05 §2 step 3, R-TX-4, R-IDX-6): a
 * create-exclusive file under $DATA/locks/ holding pid, host, start time and
 * a random token. It guards the workspace mutation lease (the transaction
 * engine), the index write lease and config/lock-file rewrites.
 *
 * A lease is stale — and taken over, with an event — when its process is gone
 * (same host), when it is older than the bounded age (a hung writer; the only
 * bound for another host's lease), when its start time lies in the future
 * (a bad clock or a damaged file; left alone it would block every writer
 * forever), or when it stays unreadable. It is released only while its token
 * still matches, so a writer whose lease was broken never removes its
 * successor's. Every "now" comes from Clock.
 */

export interface LeaseHolder {
  readonly pid: number
  readonly host: string
  readonly startedAt: string
}

export type TakeoverReason = "process-gone" | "over-age" | "future-dated" | "unreadable"

/** What a stale-lease takeover reports to `onTakeover` (the caller records the event). */
export interface LeaseTakeover {
  readonly file: string
  readonly what: string
  readonly reason: TakeoverReason
  /** The holder the stale lease named; undefined for an unreadable one. */
  readonly holder: LeaseHolder | undefined
  readonly at: string
}

export interface LeaseOptions {
  readonly file: string
  /** What the lease guards, as a user reads it: "the workspace mutation lease". */
  readonly what: string
  /** How long a writer waits for a live holder before failing "busy". */
  readonly waitMillis: number
  /** Past this age a lease is stale even if its process still runs (a hung writer). */
  readonly maxAgeMillis: number
  /** Runs once per stale lease this process took over; its failures never block the writer. */
  readonly onTakeover?: ((takeover: LeaseTakeover) => Effect.Effect<unknown, unknown>) | undefined
  /**
   * A fiber that holds this lease enters it again at once (the workspace lease:
   * a held write calls the engine, which takes the same lease, decision 0049).
   * Off: a nested take waits for the holder like any other writer, as a lease
   * that means "one run at a time" (improve) needs.
   */
  readonly reentrant?: boolean | undefined
}

interface LeaseRecord extends LeaseHolder {
  readonly token: string
}

interface Observed {
  readonly record: LeaseRecord | undefined
  readonly mtimeMs: number
}

/** A breaker file older than this belongs to a writer that died while breaking a stale lease. */
const BREAKER_STALE_MILLIS = 30_000
/** An empty or torn lease file this old was left by a writer that died between create and write. */
const TORN_STALE_MILLIS = 5_000
/** A start time up to this far ahead is clock skew between hosts sharing $DATA; further ahead it is a bad lease. */
export const FUTURE_SKEW_MILLIS = 60_000

const readLease = (file: string): Observed | undefined => {
  let text: string
  let mtimeMs: number
  try {
    mtimeMs = fs.statSync(file).mtimeMs
    text = fs.readFileSync(file, "utf8")
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === "ENOENT") return undefined
    throw error
  }
  try {
    const parsed = JSON.parse(text) as Partial<LeaseRecord>
    const valid = typeof parsed.pid === "number" && typeof parsed.host === "string" && typeof parsed.startedAt === "string" && typeof parsed.token === "string"
    return { record: valid ? (parsed as LeaseRecord) : undefined, mtimeMs }
  } catch {
    return { record: undefined, mtimeMs }
  }
}

/** Why a lease is stale at `now`, or undefined while it is live. */
export const staleReason = (lease: Observed, maxAgeMillis: number, now: number, host = os.hostname()): TakeoverReason | undefined => {
  if (lease.record === undefined) return now - lease.mtimeMs > TORN_STALE_MILLIS ? "unreadable" : undefined
  const started = Date.parse(lease.record.startedAt)
  if (Number.isNaN(started)) return "unreadable"
  if (started - now > FUTURE_SKEW_MILLIS) return "future-dated"
  if (now - started > maxAgeMillis) return "over-age"
  return lease.record.host === host && !isAlive(lease.record.pid) ? "process-gone" : undefined
}

const tryCreate = (file: string, record: LeaseRecord): boolean => {
  let fd: number
  try {
    fd = fs.openSync(file, "wx", 0o600)
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === "EEXIST") return false
    throw error
  }
  try {
    fs.writeSync(fd, JSON.stringify(record))
    fs.fsyncSync(fd)
  } finally {
    fs.closeSync(fd)
  }
  return true
}

/**
 * Removes a stale lease, serialised by a breaker file so two waiters never
 * both break (and one of them remove the other's fresh lease). Under the
 * breaker the lease is re-read and only the very lease judged stale — same
 * token, or the same torn file — is moved aside; a lease that changed
 * meanwhile is put back untouched. Returns whether this call removed it.
 */
const breakStale = (file: string, observed: Observed, maxAgeMillis: number, now: number): boolean => {
  const breaker = `${file}.break`
  try {
    const stat = fs.statSync(breaker)
    if (now - stat.mtimeMs > BREAKER_STALE_MILLIS) fs.rmSync(breaker, { force: true })
  } catch {
    // No breaker: the usual case.
  }
  if (!tryCreate(breaker, { pid: process.pid, host: os.hostname(), startedAt: new Date(now).toISOString(), token: "breaker" })) return false
  try {
    const again = readLease(file)
    if (again === undefined || staleReason(again, maxAgeMillis, now) === undefined) return false
    const same = observed.record === undefined ? again.record === undefined && again.mtimeMs === observed.mtimeMs : again.record?.token === observed.record.token
    if (!same) return false
    const aside = `${file}.stale.${process.pid}.${randomBytes(4).toString("hex")}`
    fs.renameSync(file, aside)
    const moved = readLease(aside)
    const movedSame = observed.record === undefined ? moved?.record === undefined : moved?.record?.token === observed.record.token
    if (!movedSame) {
      try {
        fs.linkSync(aside, file)
      } catch {
        // A new lease exists already; the moved one's holder will find its token gone.
      }
    }
    fs.rmSync(aside, { force: true })
    return movedSame
  } finally {
    fs.rmSync(breaker, { force: true })
  }
}

type Attempt =
  | { readonly taken: LeaseRecord; readonly tookOver: LeaseTakeover | undefined }
  | { readonly busy: LeaseRecord | undefined }

const attempt = (options: LeaseOptions, now: number): Attempt => {
  fs.mkdirSync(path.dirname(options.file), { recursive: true })
  const at = new Date(now).toISOString()
  const record: LeaseRecord = { pid: process.pid, host: os.hostname(), startedAt: at, token: randomBytes(16).toString("hex") }
  if (tryCreate(options.file, record)) return { taken: record, tookOver: undefined }
  const holder = readLease(options.file)
  const reason = holder === undefined ? undefined : staleReason(holder, options.maxAgeMillis, now)
  if (holder !== undefined && reason !== undefined) {
    const broke = breakStale(options.file, holder, options.maxAgeMillis, now)
    if (tryCreate(options.file, record)) {
      const stale = holder.record === undefined ? undefined : { pid: holder.record.pid, host: holder.record.host, startedAt: holder.record.startedAt }
      return { taken: record, tookOver: broke ? { file: options.file, what: options.what, reason, holder: stale, at } : undefined }
    }
  }
  return { busy: readLease(options.file)?.record }
}

const release = (file: string, token: string): void => {
  try {
    if (readLease(file)?.record?.token === token) fs.rmSync(file, { force: true })
  } catch {
    // Gone or unreadable: nothing of ours to remove.
  }
}

const unavailable = (file: string, reason: string, hint: string) => new WorkspaceUnavailable({ path: file, reason, hint })

/** The waiting writer's failure names what is held and by whom (pid, host, since). */
export const busyError = (options: LeaseOptions, holder: LeaseHolder | undefined) =>
  unavailable(
    options.file,
    holder === undefined
      ? `the workspace is busy: ${options.what} is held by another akm process`
      : `the workspace is busy: ${options.what} is held by akm process ${holder.pid} on ${holder.host} since ${holder.startedAt}`,
    `wait for it to finish and rerun; a lease whose process is gone, older than ${Math.round(options.maxAgeMillis / 60_000)} minutes, or dated in the future is taken over automatically`
  )

class Busy {
  readonly _tag = "Busy"
  constructor(readonly holder: LeaseRecord | undefined) {}
}

/**
 * The leases this fiber holds (file → token). A `withLease` of a reentrant lease
 * the fiber already holds runs at once instead of waiting for itself: a write
 * that holds the workspace lease from its first walk to its commit (decision
 * 0049) calls the engine, which takes the same lease, inside it.
 */
export const HeldLeases = FiberRef.unsafeMake<ReadonlyMap<string, string>>(new Map())

/** Whether this fiber holds the lease of `file`. */
export const holdsLease = (file: string): Effect.Effect<boolean> => Effect.map(FiberRef.get(HeldLeases), (held) => held.has(file))

/** Runs `effect` under a lease this fiber already holds, once the file shows the lease is still its own. */
const reenter = <A, E, R>(options: LeaseOptions, token: string, effect: Effect.Effect<A, E, R>): Effect.Effect<A, E | WorkspaceUnavailable, R> =>
  Effect.flatMap(
    Effect.sync(() => {
      try {
        return readLease(options.file)?.record
      } catch {
        return undefined
      }
    }),
    (record): Effect.Effect<A, E | WorkspaceUnavailable, R> =>
      record?.token === token
        ? effect
        // Taken over meanwhile (this holder ran past the age bound): what the holder saw under it no longer holds.
        : Effect.fail(unavailable(options.file, `${options.what} was taken over while this command held it`, "rerun the command; if it keeps happening, a writer holds the lease longer than its age bound"))
  )

/** Runs an effect while holding the lease; waits for a live holder on a bounded, jittered schedule, then fails "busy". */
export const withLease = (options: LeaseOptions) =>
  <A, E, R>(effect: Effect.Effect<A, E, R>): Effect.Effect<A, E | WorkspaceUnavailable, R> => Effect.flatMap(FiberRef.get(HeldLeases), (held) => {
    const token = held.get(options.file)
    if (token !== undefined && options.reentrant === true) return reenter(options, token, effect)
    const once = Clock.currentTimeMillis.pipe(
      Effect.flatMap((now) =>
        Effect.try({
          try: () => attempt(options, now),
          catch: (cause) => unavailable(options.file, `cannot take ${options.what}: ${String(cause)}`, "check the permissions of the akm data directory")
        })
      ),
      Effect.flatMap((result) => ("taken" in result ? Effect.succeed(result) : Effect.fail(new Busy(result.busy))))
    )
    const schedule = Schedule.spaced(Duration.millis(25)).pipe(Schedule.jittered, Schedule.upTo(Duration.millis(options.waitMillis)))
    const acquire = once.pipe(
      Effect.retry({ schedule, while: (e) => e instanceof Busy }),
      Effect.catchIf((e): e is Busy => e instanceof Busy, (e) => Effect.fail(busyError(options, e.holder))),
      Effect.tap(({ tookOver }) => (tookOver === undefined || options.onTakeover === undefined ? Effect.void : Effect.catchAllCause(options.onTakeover(tookOver), () => Effect.void)))
    )
    return Effect.acquireUseRelease(
      acquire,
      ({ taken }) => Effect.locally(effect, HeldLeases, new Map([...held, [options.file, taken.token]])),
      ({ taken }) => Effect.sync(() => release(options.file, taken.token))
    )
  })
