/**
 * A test-only child process for the lease tests (R-TX-4, R-IDX-6): takes the
 * lease `times` times through the shipped Lease and, under it, does a slow
 * read-modify-write of a counter file — a lost update shows as a short count.
 * With `hold` it takes the lease once, prints "held" and waits to be killed.
 * Usage: node <bundle> <lease-file> <counter-file> <times> [hold]
 */
import * as fs from "node:fs"
import { Effect } from "effect"
import { withLease } from "../../src/layers/fs/transaction/Lease.js"
import { workspaceLease } from "../../src/layers/sqlite/leaseEvents.js"

const [leaseFile, counterFile, timesText, mode] = process.argv.slice(2) as [string, string, string, string | undefined]
const lease = withLease(workspaceLease(leaseFile, "the test lease", { waitMillis: 60_000, maxAgeMillis: 600_000 }))

const bump = Effect.sync(() => {
  const current = fs.existsSync(counterFile) ? Number(fs.readFileSync(counterFile, "utf8")) : 0
  // Widen the window a second writer would need to lose an update.
  Atomics.wait(new Int32Array(new SharedArrayBuffer(4)), 0, 0, 2)
  fs.writeFileSync(counterFile, String(current + 1))
})

const program =
  mode === "hold"
    ? lease(Effect.zipRight(Effect.sync(() => process.stdout.write("held\n")), Effect.never))
    : Effect.forEach(Array.from({ length: Number(timesText) }), () => lease(bump), { discard: true })

Effect.runPromiseExit(program).then((exit) => {
  if (exit._tag === "Failure") {
    process.stderr.write(`${String(exit.cause)}\n`)
    process.exitCode = 1
  }
}, (error: unknown) => {
  process.stderr.write(`${String(error)}\n`)
  process.exitCode = 1
})
