import { execFile } from "node:child_process"
import { mkdtempSync, readFileSync, rmSync } from "node:fs"
import { tmpdir } from "node:os"
import { join } from "node:path"
import { promisify } from "node:util"
import { afterAll, describe, expect, it } from "vitest"
import { repoRoot, runAkm } from "../support/cli.js"

// `npm run bench` keeps working (spec 10 §1): a quick run exits 0 and writes the
// start-up section with numbers. Timings are never asserted here — the bench
// measures them, a noisy shared machine cannot judge them.

interface Timing {
  readonly medianMs: number
  readonly p95Ms: number
  readonly minMs: number
}

interface Results {
  readonly schemaVersion: number
  readonly sections: {
    readonly startup: {
      readonly runs: number
      readonly reference: Timing & { readonly name: string }
      readonly commands: ReadonlyArray<Timing & { readonly name: string; readonly ratio: number; readonly p95Ratio: number; readonly target?: number }>
    }
  }
}

const out = mkdtempSync(join(tmpdir(), "akm-bench-smoke-"))
afterAll(() => rmSync(out, { recursive: true, force: true }))

const isTiming = (t: Timing): boolean => [t.medianMs, t.p95Ms, t.minMs].every((x) => Number.isFinite(x) && x > 0)

describe("npm run bench", () => {
  it("writes the start-up section of a --quick run to --out", async () => {
    await runAkm(["--version"]) // builds dist/ under the test suite's build lock when it is missing or stale
    const file = join(out, "results.json")
    const run = await promisify(execFile)(process.execPath, ["bench/run.mjs", "--quick", "--out", file], { cwd: repoRoot, encoding: "utf8", timeout: 170_000 })
    expect(run.stdout).toContain("akm bundle list")

    const results = JSON.parse(readFileSync(file, "utf8")) as Results
    expect(results.schemaVersion).toBe(1)
    const { startup } = results.sections
    expect(startup.runs).toBe(5)
    expect(startup.reference.name).toBe("node -e 0")
    expect(isTiming(startup.reference)).toBe(true)
    expect(startup.commands.map((c) => c.name)).toEqual(["akm --version", "akm --help", "akm info", "akm bundle list"])
    for (const command of startup.commands) {
      expect(isTiming(command), command.name).toBe(true)
      expect(Number.isFinite(command.ratio) && command.ratio > 0, command.name).toBe(true)
      expect(Number.isFinite(command.p95Ratio) && command.p95Ratio > 0, command.name).toBe(true)
    }
    expect(startup.commands.find((c) => c.name === "akm --version")?.target).toBe(1.8)
  }, 180_000)
})
