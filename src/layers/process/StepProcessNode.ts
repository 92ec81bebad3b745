import { spawn } from "node:child_process"
import { constants } from "node:os"
import { Effect, Layer } from "effect"
import { ChildNotStarted } from "../../services/ChildProcess.js"
import { StepProcess } from "../../services/StepProcess.js"
import { isProcessAlive } from "../fs/processAlive.js"

const signalExit = (signal: NodeJS.Signals): number => 128 + (constants.signals[signal] ?? 0)

/** How long a child asked to stop (SIGTERM) gets before SIGKILL. */
const GRACE_MILLIS = 5_000

/**
 * Keeps the head and the tail of a stream within `max` bytes: the head is
 * filled first, then a ring of the latest bytes; what fell between them is
 * counted, not kept.
 */
const boundedCapture = (max: number) => {
  const headMax = Math.floor(max / 2)
  const tailMax = max - headMax
  const head: Array<Buffer> = []
  let headBytes = 0
  let tail: Array<Buffer> = []
  let tailBytes = 0
  let total = 0
  return {
    push: (chunk: Buffer) => {
      total += chunk.length
      if (headBytes < headMax) {
        const take = chunk.subarray(0, headMax - headBytes)
        head.push(take)
        headBytes += take.length
        chunk = chunk.subarray(take.length)
      }
      if (chunk.length === 0) return
      tail.push(chunk.length > tailMax ? chunk.subarray(chunk.length - tailMax) : chunk)
      tailBytes += Math.min(chunk.length, tailMax)
      while (tailBytes - (tail[0]?.length ?? 0) >= tailMax && tail.length > 1) tailBytes -= tail.shift()!.length
      if (tail.length > 64) tail = [Buffer.concat(tail)]
    },
    text: (): string => {
      const headText = Buffer.concat(head).toString("utf8")
      let tailBuffer = Buffer.concat(tail)
      if (tailBuffer.length > tailMax) tailBuffer = tailBuffer.subarray(tailBuffer.length - tailMax)
      const dropped = total - headBytes - tailBuffer.length
      return dropped > 0 ? `${headText}\n[… ${dropped} bytes of output not kept …]\n${tailBuffer.toString("utf8")}` : headText + tailBuffer.toString("utf8")
    },
    total: () => total
  }
}

/** StepProcess with node's spawn: `shell: false`, stdout and stderr piped into one bounded capture. */
export const StepProcessNode = Layer.succeed(
  StepProcess,
  StepProcess.of({
    run: (argv, options) =>
      Effect.async((resume) => {
        const [program, ...args] = argv
        if (program === undefined) {
          resume(Effect.fail(new ChildNotStarted("", "the step has no command", "give the step a `command` argv list")))
          return
        }
        const capture = boundedCapture(options.maxCapture)
        let timedOut = false
        let killTimer: NodeJS.Timeout | undefined
        const child = spawn(program, args, { cwd: options.cwd, env: { ...process.env, ...options.inject }, stdio: ["pipe", "pipe", "pipe"], shell: false })
        const stop = () => {
          if (child.exitCode !== null || child.signalCode !== null) return
          child.kill("SIGTERM")
          killTimer ??= setTimeout(() => child.kill("SIGKILL"), GRACE_MILLIS)
        }
        const timer = options.timeoutMs === undefined ? undefined : setTimeout(() => {
          timedOut = true
          stop()
        }, options.timeoutMs)
        child.once("spawn", () => {
          if (options.onSpawn !== undefined && child.pid !== undefined) Effect.runFork(options.onSpawn(child.pid))
        })
        child.stdout.on("data", capture.push)
        child.stderr.on("data", capture.push)
        child.stdin.on("error", () => undefined)
        child.stdin.end(options.stdin ?? "")
        child.once("error", (error: NodeJS.ErrnoException) => {
          if (timer !== undefined) clearTimeout(timer)
          resume(Effect.fail(new ChildNotStarted(program, `cannot start '${program}': ${error.code === "ENOENT" ? "no such command" : error.code === "EACCES" ? "not executable" : error.code ?? "failed"}`, "check the command name, PATH and the step's cwd; akm runs it directly, without a shell")))
        })
        child.once("close", (code, signal) => {
          if (timer !== undefined) clearTimeout(timer)
          if (killTimer !== undefined) clearTimeout(killTimer)
          resume(Effect.succeed({ exit: code ?? (signal === null ? 1 : signalExit(signal)), timedOut, output: capture.text(), bytes: capture.total() }))
        })
        return Effect.async<void>((done) => {
          if (child.exitCode !== null || child.signalCode !== null) return done(Effect.void)
          child.once("close", () => done(Effect.void))
          stop()
        })
      }),
    isRunning: (pid) => Effect.sync(() => isProcessAlive(pid))
  })
)
