// The stalls section (issue 28 item 4, spec 10 §2): the longest event-loop
// stall of each request-path operation — search, show, remember, proposal
// accept of one file — run in-process (bench/driver.ts `stalls`) on an
// indexed corpus, as an MCP server or an embedding program runs them. The
// first call of each (databases opened, modules loaded) is reported apart, and
// an idle row (a 20 ms sleep) shows the machine's own scheduling delay. "own"
// figures leave out the time the machine kept the process waiting for a core.
// Runnable alone: node bench/run.mjs --sections stalls
import { mkdtempSync, rmSync } from "node:fs"
import { tmpdir } from "node:os"
import { join } from "node:path"
import { runStep } from "./driver.mjs"

/** No request-path operation blocks the event loop longer than this (issue 28). */
export const STALL_TARGET_MS = 10

export const stallsSection = async ({ size, rounds, onProgress }) => {
  const root = mkdtempSync(join(tmpdir(), `akm-bench-stalls-${size}-`))
  try {
    onProgress(`stalls: generating ${size} items`)
    const corpus = await runStep("setup", { root, size })
    onProgress(`stalls: indexing ${size} items`)
    await runStep("full", { root })
    onProgress("stalls: measuring")
    const operations = await runStep("stalls", { root, rounds })
    return { size, files: corpus.files, rounds, targetMs: STALL_TARGET_MS, operations }
  } finally {
    rmSync(root, { recursive: true, force: true })
  }
}

/**
 * The verdict reads the stall the program made itself (`own`: the interval less
 * the run-queue wait, decision 0053) where the platform reports it, else the
 * wall figure; both are printed, so a loaded machine's delays stay visible.
 */
export const stallsRows = (section) => [
  ["operation", "longest stall ms", "p50 stall ms", "own longest ms", "own p50 ms", "first call ms", "target"],
  ...Object.entries(section.operations).map(([name, o]) => {
    const judged = o.ownMaxMs ?? o.maxMs
    return [
      name,
      o.maxMs.toFixed(1),
      o.p50Ms.toFixed(1),
      o.ownMaxMs === undefined ? "-" : o.ownMaxMs.toFixed(1),
      o.ownP50Ms === undefined ? "-" : o.ownP50Ms.toFixed(1),
      o.first.toFixed(1),
      name === "idle" ? "(noise floor)" : `≤ ${section.targetMs}${judged <= section.targetMs ? " ok" : " MISSED"}`
    ]
  })
]
