import type * as Cause from "effect/Cause"
import { ExitCode, redactReport, reportCause } from "../exitCodes.js"
import type { Format } from "../options.js"
import { renderError, styleFor } from "../render.js"

/**
 * A fast path's failure: an interruption is answered here as main.ts answers
 * it — 130 for SIGINT, 143 for SIGTERM (spec 09 §2) — and anything else is
 * undefined, so the full CLI runs the command again and reports it its own way.
 */
export const interruptedExit = (cause: Cause.Cause<unknown>, signal: string | undefined, format: Format): number | undefined => {
  const reported = reportCause(cause)
  if (reported.code !== "interrupted") return undefined
  const report = signal === "SIGTERM" ? { ...reported, exit: ExitCode.terminated } : reported
  process.stderr.write(renderError(format, redactReport(report), styleFor(process.stderr.isTTY === true, process.env)))
  return report.exit
}
