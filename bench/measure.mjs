// Wall-clock timing of child processes. The machines are shared and noisy
// (spec 10): commands run interleaved — one of each per round — so load that
// comes and goes hits every command alike, and results are medians and ratios
// to a reference measured in the same rounds.
import { spawnSync } from "node:child_process"

/**
 * Runs one command to completion and returns its wall time in ms; a failing
 * command stops the benchmark (exit codes in `okCodes` besides 0 are answers,
 * e.g. `akm health` exits 4 when something needs attention). `before`, when
 * given, runs untimed first (e.g. to clear a cache for a cold run).
 */
const timeOnce = ({ name, file, args, before, okCodes = [0] }, { cwd, env }) => {
  before?.()
  const start = process.hrtime.bigint()
  const run = spawnSync(file, args, { cwd, env, stdio: ["ignore", "ignore", "pipe"], timeout: 60_000 })
  const elapsed = Number(process.hrtime.bigint() - start) / 1e6
  if (!okCodes.includes(run.status)) {
    throw new Error(`${name} exited with ${run.status ?? run.signal}: ${String(run.stderr).trim().slice(0, 2000)}`)
  }
  return elapsed
}

/**
 * Times each command `runs` times, after one untimed warm-up run each (it
 * fills the page cache and, on a fresh build, akm's code cache).
 * Returns the samples of each command, in the order given.
 */
export const timeInterleaved = (commands, { runs, cwd, env, onRound = () => {} }) => {
  for (const command of commands) timeOnce(command, { cwd, env })
  const samples = commands.map(() => [])
  for (let round = 0; round < runs; round++) {
    commands.forEach((command, i) => samples[i].push(timeOnce(command, { cwd, env })))
    onRound(round + 1)
  }
  return samples
}

/** The p-quantile of the samples, interpolated between the two nearest ranks (p = 0.5 is the median). */
export const quantile = (samples, p) => {
  const sorted = [...samples].sort((a, b) => a - b)
  const position = (sorted.length - 1) * p
  const below = Math.floor(position)
  const above = Math.ceil(position)
  return sorted[below] + (sorted[above] - sorted[below]) * (position - below)
}

export const round2 = (x) => Math.round(x * 100) / 100

/** Median, p95 and min of a command's samples, in ms rounded to 0.01. */
export const summarize = (samples) => ({
  medianMs: round2(quantile(samples, 0.5)),
  p95Ms: round2(quantile(samples, 0.95)),
  minMs: round2(Math.min(...samples))
})
