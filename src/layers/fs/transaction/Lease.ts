import { randomBytes } from "node:crypto"
import * as fs from "node:fs"
import * as os from "node:os"
import * as path from "node:path"
import { Duration, Effect, Schedule } from "effect"
import { WorkspaceUnavailable } from "../../../domain/Errors.js"
import { isProcessAlive as isAlive } from "../processAlive.js"

/**
 * The workspace mutation lease (spec 05 §2 step 3, R-TX-4): one
 * create-exclusive file under $DATA/locks/ shared by every writer of the
 * workspace's bundle roots. It holds pid, host, start time and a random token.
 * A lease is stale when its process is gone (same host) or it is older than
 * the bounded age; it is released only while its token still matches, so a
 * writer whose lease was broken never removes its successor's.
 */

export interface LeaseOptions {
  readonly file: string
  /** How long a writer waits for a live holder before failing "busy". */
  readonly waitMillis: number
  /** Past this age a lease is stale even if its process still runs (a hung writer). */
  readonly maxAgeMillis: number
}

interface LeaseRecord {
  readonly pid: number
  readonly host: string
  readonly startedAt: string
  readonly token: string
}

/** A breaker file older than this belongs to a writer that died while breaking a stale lease. */
const BREAKER_STALE_MILLIS = 30_000
/** An empty or torn lease file this old was left by a writer that died between create and write. */
const TORN_STALE_MILLIS = 5_000


const readLease = (file: string): { record: LeaseRecord | undefined; mtimeMs: number } | undefined => {
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

const isStale = (lease: { record: LeaseRecord | undefined; mtimeMs: number }, maxAgeMillis: number, now: number): boolean => {
  if (lease.record === undefined) return now - lease.mtimeMs > TORN_STALE_MILLIS
  const age = now - Date.parse(lease.record.startedAt)
  if (!(age <= maxAgeMillis)) return true
  return lease.record.host === os.hostname() && !isAlive(lease.record.pid)
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
 * meanwhile is put back untouched.
 */
const breakStale = (file: string, observed: { record: LeaseRecord | undefined; mtimeMs: number }, maxAgeMillis: number): void => {
  const breaker = `${file}.break`
  try {
    const stat = fs.statSync(breaker)
    if (Date.now() - stat.mtimeMs > BREAKER_STALE_MILLIS) fs.rmSync(breaker, { force: true })
  } catch {
    // No breaker: the usual case.
  }
  if (!tryCreate(breaker, { pid: process.pid, host: os.hostname(), startedAt: new Date().toISOString(), token: "breaker" })) return
  try {
    const again = readLease(file)
    if (again === undefined || !isStale(again, maxAgeMillis, Date.now())) return
    const same = observed.record === undefined ? again.record === undefined && again.mtimeMs === observed.mtimeMs : again.record?.token === observed.record.token
    if (!same) return
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
  } finally {
    fs.rmSync(breaker, { force: true })
  }
}

type Attempt = { readonly taken: LeaseRecord } | { readonly busy: LeaseRecord | undefined }

const attempt = (options: LeaseOptions): Attempt => {
  fs.mkdirSync(path.dirname(options.file), { recursive: true })
  const record: LeaseRecord = { pid: process.pid, host: os.hostname(), startedAt: new Date().toISOString(), token: randomBytes(16).toString("hex") }
  if (tryCreate(options.file, record)) return { taken: record }
  const holder = readLease(options.file)
  if (holder !== undefined && isStale(holder, options.maxAgeMillis, Date.now())) {
    breakStale(options.file, holder, options.maxAgeMillis)
    if (tryCreate(options.file, record)) return { taken: record }
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

const busyError = (options: LeaseOptions, holder: LeaseRecord | undefined) =>
  unavailable(
    options.file,
    holder === undefined
      ? "the workspace is busy: another akm process is changing files"
      : `the workspace is busy: akm process ${holder.pid} on ${holder.host} has been changing files since ${holder.startedAt}`,
    `wait for it to finish and rerun; a lease whose process is gone, or older than ${Math.round(options.maxAgeMillis / 60_000)} minutes, is taken over automatically`
  )

/** Runs an effect while holding the lease; waits for a live holder on a bounded, jittered schedule, then fails "busy". */
export const withLease = (options: LeaseOptions) =>
  <A, E, R>(effect: Effect.Effect<A, E, R>): Effect.Effect<A, E | WorkspaceUnavailable, R> => {
    const once = Effect.try({
      try: () => attempt(options),
      catch: (cause) => unavailable(options.file, `cannot take the workspace lease: ${String(cause)}`, "check the permissions of the akm data directory")
    }).pipe(Effect.flatMap((result) => ("taken" in result ? Effect.succeed(result.taken) : Effect.fail({ busy: result.busy } as const))))
    const schedule = Schedule.spaced(Duration.millis(25)).pipe(Schedule.jittered, Schedule.upTo(Duration.millis(options.waitMillis)))
    const acquire = once.pipe(
      Effect.retry({ schedule, while: (e) => !(e instanceof WorkspaceUnavailable) }),
      Effect.catchIf((e): e is { readonly busy: LeaseRecord | undefined } => !(e instanceof WorkspaceUnavailable), (e) => Effect.fail(busyError(options, e.busy)))
    )
    return Effect.acquireUseRelease(acquire, () => effect, (lease) => Effect.sync(() => release(options.file, lease.token)))
  }
