import { mkdirSync, readFileSync, renameSync, rmSync, statSync, utimesSync, writeFileSync } from "node:fs"
import { join } from "node:path"
import { afterAll, beforeAll, describe, expect, it } from "vitest"
import { parseFastArgv } from "../../src/cli/fast/argv.js"
import { INDEX_SPEC } from "../../src/cli/fast/index.js"
import { makeWorkspace, repoRoot, type Workspace } from "../support/cli.js"
import { runFastPath, runFull, type Run } from "../support/fastPathRuns.js"

// The start-up fast path of a no-op `akm index` (src/cli/fast/index.ts,
// docs/decisions/0045-noop-and-startup.md): when nothing changed it prints what
// the full CLI prints; when anything a full walk notices changed (a file added,
// edited, deleted or renamed, at any depth, a .gitignore edited), it hands the
// run to the full CLI before writing anything, and the full CLI indexes it.

const runFast = (ws: Workspace, args: ReadonlyArray<string>) => runFastPath("index", "runIndex", ws, args)

/** Durations differ from run to run; everything else must be the same bytes. */
const timeless = (run: Run): Run => ({
  code: run.code,
  stdout: run.stdout.replace(/"durationMs": ?\d+/g, '"durationMs":0').replace(/\b\d+ ms\b/g, "0 ms").replace(/durationMs: \d+/g, "durationMs: 0"),
  stderr: run.stderr
})

const FALLBACK: Run = { code: 99, stdout: "", stderr: "FALLBACK" }

const notes: Readonly<Record<string, string>> = {
  "guide.md": "---\ntitle: Guide\n---\n# Guide\n\nHow to deploy the web app.\n",
  "runbook.md": "# Runbook\n\nRestart the service.\n",
  "deep/a/b/c/leaf.md": "# Leaf\n\nA note four folders down.\n",
  "deep/a/sibling.md": "# Sibling\n\nNext to b.\n",
  "drafts/ignored.md": "# Draft\n\nIgnored by .gitignore.\n",
  ".gitignore": "drafts/\n"
}

describe("the no-op index fast path", () => {
  const ws = makeWorkspace()
  afterAll(ws.cleanup)
  let root: string

  const indexed = async () => {
    const run = await ws.run(["index", "--format", "json"])
    expect(run.code, run.stderr).toBe(0)
    return JSON.parse(run.stdout) as { bundles: ReadonlyArray<{ bundle: string; status: string; added: number; updated: number; removed: number; unchanged: number }> }
  }

  /** The fast path declines the change, then the full CLI (through bin/akm.js) indexes it, then the fast path answers again. */
  const noticed = async (change: () => void, expected: Partial<{ added: number; updated: number; removed: number }>) => {
    change()
    expect(await runFast(ws, ["index", "--format", "json"])).toEqual(FALLBACK)
    const report = (await indexed()).bundles.find((b) => b.bundle === "notes")!
    expect(report.status).toBe("indexed")
    expect(report).toMatchObject(expected)
    const again = await runFast(ws, ["index", "--format", "json"])
    expect(again.stderr).not.toContain("FALLBACK")
    expect(JSON.parse(again.stdout).bundles[0].status).toBe("unchanged")
  }

  beforeAll(async () => {
    root = ws.folder("notes", notes)
    expect((await ws.run(["bundle", "add", root, "--name", "notes"])).code).toBe(0)
    // bundle add indexed it (through the full CLI).
    expect((await indexed()).bundles[0]).toMatchObject({ status: "unchanged", unchanged: 4 })
  }, 90_000)

  it("parses only plain command lines: --full, --opt=value, extra words and help go to the full CLI", () => {
    expect(parseFastArgv(INDEX_SPEC, ["index"])).toBeDefined()
    expect(parseFastArgv(INDEX_SPEC, ["index", "--bundle", "notes", "--dry-run", "-q", "--format", "text"])?.values.get("--bundle")).toEqual(["notes"])
    for (const args of [["index", "--full"], ["index", "--format=json"], ["index", "extra"], ["index", "--help"], ["index", "--bundle"], ["index", "--dry-run", "yes"]]) {
      expect(parseFastArgv(INDEX_SPEC, args), args.join(" ")).toBeUndefined()
    }
  })

  it("prints what the full CLI prints when nothing changed, with the same exit code", async () => {
    for (const args of [
      ["index"],
      ["index", "--format", "json"],
      ["index", "--format", "text"],
      ["index", "--format", "yaml"],
      ["index", "--bundle", "notes", "--format", "json"],
      ["index", "--dry-run", "--format", "text"],
      ["index", "-q", "--format", "jsonl"]
    ]) {
      const fast = await runFast(ws, args)
      expect(fast.stderr, args.join(" ")).not.toContain("FALLBACK")
      const full = await runFull(ws, args)
      expect(timeless(fast), args.join(" ")).toEqual(timeless(full))
    }
    expect(JSON.parse((await runFast(ws, ["index", "--format", "json"])).stdout).bundles[0]).toMatchObject({ status: "unchanged", unchanged: 4 })
  }, 120_000)

  it("fails like the full CLI for an unknown bundle (the full CLI reports it)", async () => {
    expect(await runFast(ws, ["index", "--bundle", "nope"])).toEqual(FALLBACK)
    const viaBin = await ws.run(["index", "--bundle", "nope"])
    const full = await runFull(ws, ["index", "--bundle", "nope"])
    expect({ code: viaBin.code, stdout: viaBin.stdout, stderr: viaBin.stderr }).toEqual(full)
    expect(viaBin.code).not.toBe(0)
  }, 60_000)

  it("notices a file added at the top", () => noticed(() => writeFileSync(join(root, "new.md"), "# New\n\nA new note.\n"), { added: 1 }), 60_000)

  it("notices a file edited (new size)", () =>
    noticed(() => writeFileSync(join(root, "runbook.md"), "# Runbook\n\nRestart the service, then check the logs.\n"), { updated: 1 }), 60_000)

  it("notices a file edited with the same size (new mtime)", () =>
    noticed(() => {
      const file = join(root, "guide.md")
      const before = statSync(file)
      writeFileSync(file, readFileSync(file, "utf8").replace("deploy", "DEPLOY"))
      utimesSync(file, before.atime, new Date(before.mtimeMs + 5_000))
    }, { updated: 1 }), 60_000)

  it("notices a file edited four folders down", () =>
    noticed(() => writeFileSync(join(root, "deep/a/b/c/leaf.md"), "# Leaf\n\nA note four folders down, edited.\n"), { updated: 1 }), 60_000)

  it("notices a file added in a new nested folder", () =>
    noticed(() => {
      mkdirSync(join(root, "deep/a/b/new"), { recursive: true })
      writeFileSync(join(root, "deep/a/b/new/fresh.md"), "# Fresh\n\nIn a new folder.\n")
    }, { added: 1 }), 60_000)

  it("notices a file deleted deep down", () => noticed(() => rmSync(join(root, "deep/a/b/c/leaf.md")), { removed: 1 }), 60_000)

  it("notices a file renamed", () => noticed(() => renameSync(join(root, "deep/a/sibling.md"), join(root, "deep/a/renamed.md")), { added: 1, removed: 1 }), 60_000)

  it("notices a .gitignore edit that brings an ignored folder in", () => noticed(() => writeFileSync(join(root, ".gitignore"), "# nothing ignored\n"), { added: 1 }), 60_000)

  it("notices a nested .gitignore that leaves a file out", () => noticed(() => writeFileSync(join(root, "deep/.gitignore"), "renamed.md\n"), { removed: 1 }), 60_000)

  it("hands a bundle whose folder is gone to the full CLI, which keeps its rows as stale", async () => {
    renameSync(root, `${root}.away`)
    try {
      expect(await runFast(ws, ["index", "--format", "json"])).toEqual(FALLBACK)
      const run = await ws.run(["index", "--format", "json"])
      expect(JSON.parse(run.stdout).bundles[0].status).toBe("stale")
    } finally {
      renameSync(`${root}.away`, root)
    }
    // Stale rows rescan; then the fast path answers again.
    expect(await runFast(ws, ["index", "--format", "json"])).toEqual(FALLBACK)
    expect((await indexed()).bundles[0]?.status).toBe("indexed")
    expect((await runFast(ws, ["index", "--format", "json"])).stderr).not.toContain("FALLBACK")
  }, 90_000)

  it("bin/akm.js prints the same as the full CLI for a no-op and for a change", async () => {
    const noop = await ws.run(["index", "--format", "json"])
    expect(timeless({ code: noop.code, stdout: noop.stdout, stderr: noop.stderr })).toEqual(timeless(await runFull(ws, ["index", "--format", "json"])))
    writeFileSync(join(root, "later.md"), "# Later\n\nAdded last.\n")
    const changed = await ws.run(["index", "--format", "json"])
    expect(JSON.parse(changed.stdout).bundles[0]).toMatchObject({ status: "indexed", added: 1 })
  }, 90_000)
})

describe("the no-op index fast path with a retirement overlay (R-MEM-5)", () => {
  const ws = makeWorkspace()
  afterAll(ws.cleanup)

  it("leaves the run to the full CLI, which lays the overlay again", async () => {
    const text = (t: string) => `---\ndescription: ${t}\n---\n# ${t}\n\n${t}\n`
    const ro = ws.folder("ro", {
      "memories/zebra-crossing.md": text("Zebra crossings on the campus need a warden"),
      "memories/zebra-crossing-copy.md": text("Zebra crossings on the campus need a warden"),
      "memories/other.md": text("Something else entirely")
    })
    expect((await ws.run(["bundle", "add", ro, "--name", "ro", "--adapter", "akm", "--read-only"])).code).toBe(0)
    // Nothing retired yet: after one whole run (bundle add indexes one bundle) the fast path answers.
    expect((await ws.run(["index"])).code).toBe(0)
    expect((await runFast(ws, ["index", "--format", "json"])).stderr).not.toContain("FALLBACK")
    const consolidated = await ws.run(["memory", "consolidate", "--bundle", "ro", "--format", "json"])
    expect(consolidated.code, consolidated.stderr).toBe(0)
    const hidden = JSON.parse(consolidated.stdout).tiers[0].retired[0].ref as string
    expect(await runFast(ws, ["index", "--format", "json"])).toEqual(FALLBACK)
    const run = await ws.run(["index", "--format", "json"])
    expect(run.code, run.stderr).toBe(0)
    const hits = JSON.parse((await ws.run(["search", "zebra warden", "--bundle", "ro", "--format", "json"])).stdout).hits as Array<{ ref: string }>
    expect(hits.map((h) => h.ref)).not.toContain(hidden)
  }, 120_000)
})

describe("the index fast bundle", () => {
  it("carries neither the CLI framework's parser nor the tokenizer's ranks", () => {
    const bundle = readFileSync(join(repoRoot, "dist", "cli", "index.cjs"), "utf8")
    expect(bundle).not.toContain("import(")
    expect(bundle).not.toContain("Expected to find option")
    expect(bundle.length).toBeLessThan(1_000_000)
  })
})
