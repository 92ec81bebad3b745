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
    readonly improve: { readonly defects: number; readonly heldOut: { readonly precision: number; readonly recall: number }; readonly run: { readonly secondRunModelCalls: number } }
    readonly startup: {
      readonly runs: number
      readonly loadavg: { readonly before: ReadonlyArray<number>; readonly after: ReadonlyArray<number> }
      readonly reference: Timing & { readonly name: string }
      readonly commands: ReadonlyArray<Timing & { readonly name: string; readonly ratio: number; readonly p95Ratio: number; readonly target?: number }>
    }
    readonly corpus: { readonly templates: number; readonly sizes: ReadonlyArray<{ readonly size: number; readonly files: number }> }
    readonly index: { readonly runs: ReadonlyArray<{ readonly items: number; readonly full: { readonly ms: number; readonly peakRssMb: number }; readonly noop: { readonly ms: number; readonly status: ReadonlyArray<string> }; readonly changed: { readonly files: number; readonly updated: number } }> }
    readonly search: { readonly inProcess: { readonly queries: number; readonly p50Ms: number; readonly p95Ms: number }; readonly cli: { readonly ratio: number } }
    readonly quality: { readonly naturalLanguage?: { readonly queries: number; readonly ndcg: number }; readonly rankingBaseline?: { readonly passed: number; readonly total: number } }
    readonly memory: { readonly peakRssMb: number }
    readonly mcp: { readonly items: number; readonly firstAnswerMs: number; readonly search: { readonly calls: number; readonly p50Ms: number } }
    readonly stalls: { readonly files: number; readonly operations: Readonly<Record<string, { readonly maxMs: number; readonly first: number }>> }
    readonly writes: { readonly files: number; readonly remember: { readonly medianMs: number; readonly peakRssMb: number; readonly statuses: ReadonlyArray<string> }; readonly accept: { readonly medianMs: number; readonly statuses: ReadonlyArray<string> } }
  }
}

const out = mkdtempSync(join(tmpdir(), "akm-bench-smoke-"))
afterAll(() => rmSync(out, { recursive: true, force: true }))

const isTiming = (t: Timing): boolean => [t.medianMs, t.p95Ms, t.minMs].every((x) => Number.isFinite(x) && x > 0)

describe("npm run bench", () => {
  it("writes the start-up section of a --quick run to --out", async () => {
    await runAkm(["--version"]) // builds dist/ under the test suite's build lock when it is missing or stale
    const file = join(out, "results.json")
    const run = await promisify(execFile)(process.execPath, ["bench/run.mjs", "--quick", "--out", file], { cwd: repoRoot, encoding: "utf8", timeout: 280_000 })
    expect(run.stdout).toContain("akm bundle list")
    expect(run.stdout).toContain("in-process p50")
    expect(run.stdout).toContain("stalls —")

    const results = JSON.parse(readFileSync(file, "utf8")) as Results
    expect(results.schemaVersion).toBe(1)
    const { startup } = results.sections
    expect(startup.runs).toBe(5)
    expect(startup.reference.name).toBe("node -e 0")
    expect(isTiming(startup.reference)).toBe(true)
    expect(startup.commands.map((c) => c.name)).toEqual([
      "akm --version",
      "akm --help",
      "akm info",
      "akm bundle list",
      "akm health",
      "akm search",
      "akm search -- q",
      "akm show",
      "akm curate (warm)",
      "akm curate (cold)"
    ])
    expect(startup.loadavg.before).toHaveLength(3)
    for (const command of startup.commands) {
      expect(isTiming(command), command.name).toBe(true)
      expect(Number.isFinite(command.ratio) && command.ratio > 0, command.name).toBe(true)
      expect(Number.isFinite(command.p95Ratio) && command.p95Ratio > 0, command.name).toBe(true)
    }
    expect(startup.commands.find((c) => c.name === "akm --version")?.target).toBe(1.8)

    // The corpus, index, search, quality and memory sections on the 200-item quick corpus (no timing assertions).
    const { corpus, index, search, quality, memory } = results.sections
    expect(corpus.templates).toBeGreaterThan(0)
    expect(corpus.sizes).toMatchObject([{ size: 200, files: 200 }])
    const [build] = index.runs
    expect(build!.items).toBeGreaterThan(100)
    expect(build!.full.ms).toBeGreaterThan(0)
    expect(build!.noop.status).toEqual(["unchanged"])
    expect(build!.changed.files).toBe(2)
    expect(build!.changed.updated).toBeGreaterThan(0)
    expect(search.inProcess.queries).toBe(50)
    expect(Number.isFinite(search.inProcess.p50Ms) && Number.isFinite(search.cli.ratio)).toBe(true)
    expect(quality.naturalLanguage?.queries).toBeGreaterThan(40)
    expect(memory.peakRssMb).toBeGreaterThan(0)
    // remember and accept on an indexed bundle (issue 13 item 3), 200 files in a quick run.
    const { writes } = results.sections
    expect(writes).toMatchObject({ files: 200, remember: { statuses: ["accepted"] }, accept: { statuses: ["accepted"] } })
    expect(writes.remember.medianMs > 0 && writes.accept.medianMs > 0 && writes.remember.peakRssMb > 0).toBe(true)
    // The longest event-loop stall of each request-path operation (issue 28 item 4).
    const { stalls } = results.sections
    expect(stalls.files).toBe(200)
    expect(Object.keys(stalls.operations)).toEqual(["idle", "search", "show", "remember", "accept"])
    for (const [name, o] of Object.entries(stalls.operations)) expect(Number.isFinite(o.maxMs) && Number.isFinite(o.first), name).toBe(true)
    // The improve gate on the seeded defects (issue 18 item 6): the held-out half judged right, a repeat run free.
    const { improve } = results.sections
    expect(improve).toMatchObject({ defects: 30, heldOut: { precision: 1, recall: 1 }, run: { secondRunModelCalls: 0 } })
    // akm mcp over stdio with the SDK client (issue 24 §5).
    const { mcp } = results.sections
    expect(mcp.items).toBeGreaterThan(100)
    expect(mcp.search.calls).toBe(200)
    expect(mcp.search.p50Ms > 0 && mcp.firstAnswerMs > 0).toBe(true)
  }, 290_000)
})
