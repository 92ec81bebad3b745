// The writes section (issue 13 item 3, spec 10): `akm remember` and
// `akm proposal accept` of a one-file edit in an indexed bundle of `size`
// files (20,000 by default), each in a fresh process (bench/driver.ts), so
// its wall time (in-process, start-up excluded) and peak RSS are its own.
// Runnable alone: node bench/run.mjs --sections writes
import { mkdtempSync, rmSync } from "node:fs"
import { tmpdir } from "node:os"
import { join } from "node:path"
import { runStep } from "./driver.mjs"

/** Targets: each write validates and reindexes what it touches, not the bundle. */
export const WRITE_TARGETS = { rememberMs: 1000, acceptMs: 1000 }

const median = (xs) => [...xs].sort((a, b) => a - b)[Math.floor((xs.length - 1) / 2)]

export const writesSection = async ({ size, runs, onProgress }) => {
  const root = mkdtempSync(join(tmpdir(), `akm-bench-writes-${size}-`))
  try {
    onProgress(`writes: generating ${size} items`)
    const corpus = await runStep("setup", { root, size })
    onProgress(`writes: indexing ${size} items`)
    await runStep("full", { root })
    const remember = []
    const accept = []
    for (let n = 0; n < runs; n++) {
      onProgress(`writes: remember ${n + 1}/${runs}`)
      remember.push(await runStep("remember", { root, n }))
      onProgress(`writes: accept ${n + 1}/${runs}`)
      const { id } = await runStep("propose", { root })
      accept.push(await runStep("accept", { root, id }))
    }
    const summary = (samples) => ({
      runs: samples.length,
      medianMs: median(samples.map((s) => s.ms)),
      // In-process CPU (user + sys) of the step: on a loaded machine the steadier figure (decision 0032).
      medianCpuMs: median(samples.map((s) => s.cpuMs ?? 0)),
      maxMs: Math.max(...samples.map((s) => s.ms)),
      peakRssMb: Math.max(...samples.map((s) => s.peakRssMb)),
      statuses: [...new Set(samples.map((s) => s.status))]
    })
    return { size, files: corpus.files, remember: summary(remember), accept: summary(accept), targets: WRITE_TARGETS }
  } finally {
    rmSync(root, { recursive: true, force: true })
  }
}

const mark = (value, target) => (value <= target ? " ok" : " MISSED")

export const writesRows = (section) => [
  ["command", "files", "median ms", "max ms", "median CPU ms", "peak RSS MB"],
  ...["remember", "accept"].map((name) => {
    const r = section[name]
    return [name, String(section.files), `${r.medianMs.toFixed(0)}${mark(r.medianMs, section.targets[`${name}Ms`])}`, r.maxMs.toFixed(0), (r.medianCpuMs ?? 0).toFixed(0), r.peakRssMb.toFixed(0)]
  })
]
