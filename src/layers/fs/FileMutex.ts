import * as fs from "node:fs"
import * as path from "node:path"
import { Effect, Schedule } from "effect"
import { WorkspaceUnavailable } from "../../domain/Errors.js"
import { isProcessAlive as isAlive } from "./processAlive.js"


/** Takes the lock file or fails with "busy"; a holder whose process is gone is stale and replaced. */
const tryAcquire = (file: string) =>
  Effect.try({
    try: () => {
      fs.mkdirSync(path.dirname(file), { recursive: true })
      try {
        const fd = fs.openSync(file, "wx", 0o600)
        fs.writeSync(fd, JSON.stringify({ pid: process.pid, at: new Date().toISOString() }))
        fs.closeSync(fd)
        return true
      } catch (error) {
        if ((error as NodeJS.ErrnoException).code !== "EEXIST") throw error
        let holder: number | undefined
        try {
          holder = (JSON.parse(fs.readFileSync(file, "utf8")) as { pid?: number }).pid
        } catch {
          holder = undefined
        }
        if (holder !== undefined && holder !== process.pid && !isAlive(holder)) {
          // Break a stale lock by renaming it first: of two waiters only one
          // rename succeeds, so neither can delete a lock the other just took.
          const aside = `${file}.stale.${process.pid}.${Date.now()}`
          try {
            fs.renameSync(file, aside)
            const moved = (JSON.parse(fs.readFileSync(aside, "utf8")) as { pid?: number }).pid
            if (moved !== holder) fs.renameSync(aside, file) // someone took it meanwhile: put it back
            else fs.rmSync(aside, { force: true })
          } catch {
            // Lost the race to another waiter; retry normally.
          }
        }
        return false
      }
    },
    catch: (cause) =>
      new WorkspaceUnavailable({ path: file, reason: String(cause), hint: "check permissions of the akm data directory" })
  }).pipe(Effect.flatMap((ok) => (ok ? Effect.void : Effect.fail("busy" as const))))

/**
 * A cross-process mutex on a lock file (O_EXCL create), for short critical
 * sections such as config and lock rewrites. Waits up to ~10 s for a live holder.
 */
export const withFileMutex = (file: string) =>
  <A, E, R>(effect: Effect.Effect<A, E, R>): Effect.Effect<A, E | WorkspaceUnavailable, R> =>
    Effect.acquireUseRelease(
      tryAcquire(file).pipe(
        Effect.retry({ schedule: Schedule.spaced("25 millis"), times: 400, while: (e) => e === "busy" }),
        Effect.catchIf(
          (e): e is "busy" => e === "busy",
          () =>
            Effect.fail(
              new WorkspaceUnavailable({ path: file, reason: "another akm process holds the workspace lock", hint: "wait for it to finish, or remove the file if no akm is running" })
            )
        )
      ),
      () => effect,
      () =>
        Effect.sync(() => {
          // Release only our own lock.
          try {
            const holder = (JSON.parse(fs.readFileSync(file, "utf8")) as { pid?: number }).pid
            if (holder === process.pid) fs.rmSync(file, { force: true })
          } catch {
            // Already gone.
          }
        })
    )
