import { spawn } from "node:child_process"
import { Effect, Layer } from "effect"
import { WorkspaceUnavailable } from "../../domain/Errors.js"
import { Crontab, CrontabChanged } from "../../services/Crontab.js"

interface Result {
  readonly code: number | null
  readonly stdout: string
  readonly stderr: string
}

const TIMEOUT_MS = 15_000

const unavailable = (reason: string) =>
  new WorkspaceUnavailable({ path: "crontab", reason, hint: "check that cron is installed and `crontab -l` works for you, or set runtime.crontabFile in config.yaml to have akm edit a plain file" })

/** One call of the crontab program: argv, no shell, bounded in time. */
const call = (program: string, args: ReadonlyArray<string>, env: NodeJS.ProcessEnv, stdin?: string) =>
  Effect.async<Result, WorkspaceUnavailable>((resume) => {
    const child = spawn(program, args, { env, stdio: ["pipe", "pipe", "pipe"], shell: false, timeout: TIMEOUT_MS })
    const out: Array<Buffer> = []
    const err: Array<Buffer> = []
    child.stdout.on("data", (chunk: Buffer) => out.push(chunk))
    child.stderr.on("data", (chunk: Buffer) => err.push(chunk))
    child.once("error", (error: NodeJS.ErrnoException) => resume(Effect.fail(unavailable(`cannot run ${program}: ${error.code === "ENOENT" ? "no such command" : error.code ?? "failed"}`))))
    child.once("close", (code) => resume(Effect.succeed({ code, stdout: Buffer.concat(out).toString("utf8"), stderr: Buffer.concat(err).toString("utf8") })))
    child.stdin.on("error", () => undefined)
    child.stdin.end(stdin ?? "")
    return Effect.sync(() => child.kill("SIGTERM"))
  })

/**
 * The user's crontab through the `crontab` program: `crontab -l` reads
 * ("no crontab for …" is an empty one), `crontab -` installs the new text
 * (`crontab -r` when akm's removal leaves it empty), after a second
 * `crontab -l` shows nobody changed it meanwhile. `env` is for tests, which
 * put a fake `crontab` first on PATH.
 */
export const crontabProgram = (options: { readonly program?: string; readonly env?: NodeJS.ProcessEnv } = {}): Crontab["Type"] => {
  const program = options.program ?? "crontab"
  const env = options.env ?? process.env
  const read = Effect.flatMap(call(program, ["-l"], env), (r) =>
    r.code === 0
      ? Effect.succeed(r.stdout)
      : /no crontab/i.test(r.stderr)
        ? Effect.succeed("")
        : Effect.fail(unavailable(`\`${program} -l\` failed (exit ${r.code ?? "signal"}): ${r.stderr.trim().slice(0, 200)}`)))
  return Crontab.of({
    where: Effect.succeed("your crontab (crontab -l)"),
    read,
    replace: (expected, next) =>
      Effect.gen(function* () {
        if ((yield* read) !== expected) return yield* Effect.fail(new CrontabChanged())
        const r = next === "" ? yield* call(program, ["-r"], env) : yield* call(program, ["-"], env, next)
        if (r.code !== 0 && !(next === "" && /no crontab/i.test(r.stderr))) {
          return yield* Effect.fail(unavailable(`\`${program} ${next === "" ? "-r" : "-"}\` failed (exit ${r.code ?? "signal"}): ${r.stderr.trim().slice(0, 200)}`))
        }
      })
  })
}

export const CrontabProgram = (options: { readonly program?: string; readonly env?: NodeJS.ProcessEnv } = {}) => Layer.succeed(Crontab, crontabProgram(options))
