import { Effect, Layer } from "effect"
import { redact } from "../../domain/Redaction.js"
import { neutralise } from "../../domain/TerminalText.js"
import { Progress } from "../../services/Progress.js"

export interface ProgressOptions {
  readonly quiet: boolean
  readonly isTTY: boolean
  readonly write: (text: string) => void
}

/** Draws one self-overwriting line per task, only on a TTY stderr; warnings go to stderr unless --quiet. */
export const makeProgress = (options: ProgressOptions) => {
  const draw = options.isTTY && !options.quiet
  let lastDraw = 0
  return Progress.of({
    update: (task, done, total) =>
      Effect.sync(() => {
        if (!draw) return
        // Wall time throttles redraws of a terminal line (a human's eyes, not a recorded time), so not Clock's.
        const now = Date.now()
        if (now - lastDraw < 50 && (total === undefined || done < total)) return
        lastDraw = now
        options.write(`\r\u001b[2K${neutralise(task)} ${total === undefined ? String(done) : `${done}/${total}`}`)
      }),
    done: (task, message) =>
      Effect.sync(() => {
        if (draw) options.write(`\r\u001b[2K${neutralise(task)}${message === undefined ? "" : ` ${neutralise(message)}`}\n`)
      }),
    warn: (message) =>
      Effect.sync(() => {
        // Bundle names, paths and failure reasons reach these lines: no escape sequence of theirs may act, and
        // no secret shape is printed (the redactor's patterns; this layer has no workspace to know values from).
        if (!options.quiet) options.write(`${neutralise(redact(message))}\n`)
      })
  })
}

export const ProgressStderr = (quiet: boolean) =>
  Layer.sync(Progress, () => makeProgress({ quiet, isTTY: process.stderr.isTTY === true, write: (text) => process.stderr.write(text) }))

/** Silent progress, for tests and embedding programs. */
export const ProgressSilent = Layer.succeed(Progress, makeProgress({ quiet: true, isTTY: false, write: () => undefined }))
