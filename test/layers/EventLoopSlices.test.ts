// Event-loop slices (issue 28 item 4, docs/decisions/0048-event-loop-stalls.md):
// long request-path work lets the event loop turn, so an MCP server's timers and
// other requests are not held up for the whole operation. Behaviour only — how
// often the loop turned, never how long anything took.
import { describe, expect, it } from "@effect/vitest"
import * as fs from "node:fs"
import * as os from "node:os"
import * as path from "node:path"
import { Effect, FiberRef, ManagedRuntime } from "effect"
import { afterEach } from "vitest"
import { EventLoopSlicing } from "../../src/domain/EventLoopSlice.js"
import { makeBundleFiles } from "../../src/layers/fs/BundleFilesNode.js"
import { EventLoopSlices } from "../../src/layers/runtime/EventLoopSlices.js"

const dirs: Array<string> = []
afterEach(() => {
  for (const dir of dirs.splice(0)) fs.rmSync(dir, { recursive: true, force: true })
})

/** A tree of `perDir` files in each of `dirCount` directories; returns its real path. */
const bigTree = (dirCount: number, perDir: number): string => {
  const root = fs.realpathSync(fs.mkdtempSync(path.join(os.tmpdir(), "akm-slices-")))
  dirs.push(root)
  for (let d = 0; d < dirCount; d++) {
    fs.mkdirSync(path.join(root, `d${d}`))
    for (let f = 0; f < perDir; f++) fs.writeFileSync(path.join(root, `d${d}`, `f${f}.md`), `# ${d}/${f}\n`)
  }
  return root
}

/** Counts event-loop turns (setImmediate callbacks) while `run` runs. */
const turnsDuring = async <A>(run: () => Promise<A>): Promise<{ readonly result: A; readonly turns: number }> => {
  let turns = 0
  let handle: NodeJS.Immediate | undefined
  const beat = () => {
    turns++
    handle = setImmediate(beat)
  }
  handle = setImmediate(beat)
  // Counted from the call on: the first beat has not run yet.
  turns = 0
  try {
    const result = await run()
    return { result, turns }
  } finally {
    clearImmediate(handle)
  }
}

/** Burns `ms` of wall time synchronously: one long step of a program. */
const busy = (ms: number) => {
  const until = performance.now() + ms
  while (performance.now() < until) {
    // spin
  }
}

describe("event-loop slices", () => {
  it("the walk lets the event loop turn between slices and lists exactly what a synchronous walk lists", async () => {
    const root = bigTree(6, 100)
    const files = makeBundleFiles()
    const walk = files.walk(root, { includeHidden: false })
    // Slicing off (the default): the walk runs in one piece, as Effect.runSync needs.
    const whole = Effect.runSync(walk)
    // A zero-length slice: every pause of the walk (each directory, every 32 entries) lets the loop turn.
    const sliced = await turnsDuring(() => Effect.runPromise(Effect.locally(walk, EventLoopSlicing, 0)))
    expect(sliced.result).toEqual(whole)
    expect(sliced.result.files).toHaveLength(600)
    expect(sliced.turns).toBeGreaterThanOrEqual(6)
  })

  it("a program of many synchronous steps lets timers run under the sliced scheduler, and not under the default one", async () => {
    // 200 steps of 0.25 ms: 50 ms of work, far over one slice.
    const program = Effect.forEach(Array.from({ length: 200 }, (_, i) => i), (i) => Effect.sync(() => (busy(0.25), i)))
    const plain = await turnsDuring(() => Effect.runPromise(program))
    const runtime = ManagedRuntime.make(EventLoopSlices)
    try {
      const sliced = await turnsDuring(() => runtime.runPromise(program))
      expect(sliced.result).toEqual(plain.result)
      expect(plain.turns).toBeLessThanOrEqual(1)
      expect(sliced.turns).toBeGreaterThanOrEqual(3)
      // The layer also turns on the yields of long loops (the walker's, the validator's).
      expect(await runtime.runPromise(FiberRef.get(EventLoopSlicing))).toBeGreaterThan(0)
    } finally {
      await runtime.dispose()
    }
  })
})
