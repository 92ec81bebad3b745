import { Effect } from "effect"
import { describe, expect, it } from "vitest"
import { makeProgress } from "../../src/layers/fs/ProgressTerminal.js"

const run = (isTTY: boolean, quiet: boolean) => {
  const written: Array<string> = []
  const progress = makeProgress({ isTTY, quiet, write: (t) => void written.push(t) })
  Effect.runSync(Effect.all([progress.update("index notes", 1, 2), progress.update("index notes", 2, 2), progress.done("index notes", "done"), progress.warn("careful")]))
  return written.join("")
}

describe("Progress (R-BUN-4)", () => {
  it("draws only on a TTY stderr", () => {
    expect(run(true, false)).toContain("index notes 2/2")
    expect(run(false, false)).toBe("careful\n")
  })
  it("--quiet silences drawing and warnings", () => {
    expect(run(true, true)).toBe("")
  })
})
