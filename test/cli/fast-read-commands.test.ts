import Database from "better-sqlite3"
import { readFileSync } from "node:fs"
import { join } from "node:path"
import { afterAll, beforeAll, describe, expect, it } from "vitest"
import { parseFastArgv, type FastCommandSpec } from "../../src/cli/fast/argv.js"
import { BUNDLE_LIST_SPEC } from "../../src/cli/fast/bundleList.js"
import { CURATE_SPEC } from "../../src/cli/fast/curate.js"
import { HEALTH_SPEC } from "../../src/cli/fast/health.js"
import { INFO_SPEC } from "../../src/cli/fast/info.js"
import { SHOW_SPEC } from "../../src/cli/fast/show.js"
import { FORMATS } from "../../src/cli/options.js"
import { makeWorkspace, repoRoot, type Workspace } from "../support/cli.js"
import { ARGV, distCli, runFastPath, runFull, runNodeScript } from "../support/fastPathRuns.js"
import { CANARY, notesFiles, secretsFiles, skillsFiles } from "../support/indexedWorkspace.js"

// The start-up fast paths of show, curate, info, bundle list and health (src/cli/fast/,
// docs/decisions/0013-fast-read-commands.md): for every command line one answers,
// it prints the same bytes, exit code and usage event as the full @effect/cli
// command; every other command line goes to the full CLI untouched.

interface FastPath {
  readonly bundle: string
  readonly run: string
  readonly spec: FastCommandSpec
}

const PATHS: Readonly<Record<string, FastPath>> = {
  show: { bundle: "show", run: "runShow", spec: SHOW_SPEC },
  curate: { bundle: "curate", run: "runCurate", spec: CURATE_SPEC },
  info: { bundle: "info", run: "runInfo", spec: INFO_SPEC },
  bundle: { bundle: "bundle-list", run: "runBundleList", spec: BUNDLE_LIST_SPEC },
  health: { bundle: "health", run: "runHealth", spec: HEALTH_SPEC }
}

const runFast = (ws: Workspace, args: ReadonlyArray<string>, env?: Readonly<Record<string, string>>) => {
  const path = PATHS[args[0]!]!
  return runFastPath(path.bundle, path.run, ws, args, env)
}

const lastUsage = (ws: Workspace) => {
  const db = new Database(join(ws.dataDir, "state.db"), { readonly: true })
  try {
    return db.prepare("SELECT id, kind, query, refs, source FROM usage_events ORDER BY id DESC LIMIT 1").get()
  } finally {
    db.close()
  }
}

/** Command lines the fast paths answer; each is compared with the full CLI. */
const answered = (ws: Workspace): ReadonlyArray<ReadonlyArray<string>> => [
  ["show", "notes//guide"],
  ["show", "guide", "--format", "text"],
  ...FORMATS.map((format) => ["show", "notes//guide", "--level", "card", "--format", format]),
  ["show", "notes//guide", "--level", "outline", "--format", "json"],
  ["show", "skills//pdf", "--level", "outline", "--format", "text"],
  ["show", "skills//pdf/scripts/fill.py", "--format", "json"],
  ["show", "notes//guide#secrets", "--format", "json"],
  ["show", "notes//guide", "--lines", "2:5", "--format", "text"],
  ["show", "notes//runbook", "--no-track", "--format", "json"],
  ["show", "vault//env/app", "--format", "text"],
  ["show", "vault//env/app", "--level", "outline", "--format", "json"],
  ["show", "vault//secrets/npm-token", "--format", "json"],
  ["show", "-q", "notes//guide", "--verbose", "--format", "yaml"],
  ["show", "--format", "json", "--", "notes//guide"],
  ["show", "notes//guide", "--config-dir", ws.configDir, "--data-dir", ws.dataDir, "--cache-dir", ws.cacheDir, "--format", "json"],
  ["curate", "deploy the web app", "--format", "json"],
  ["curate", "deploy the web app", "--format", "text"],
  ["curate", "fill a pdf form", "--budget", "300", "--format", "json"],
  ["curate", "restart the service", "--bundle", "notes", "--bundle", "skills", "--limit", "3", "--format", "md"],
  ["curate", "deploy", "--no-track", "--format", "yaml"],
  ["curate", "--format", "json", "--", "deploy the web app"],
  ["info"],
  ["info", "--format", "text"],
  ...FORMATS.map((format) => ["info", "--format", format]),
  ["info", "--config-dir", ws.configDir, "--format", "json"],
  ["bundle", "list"],
  ...FORMATS.map((format) => ["bundle", "list", "--format", format]),
  ["bundle", "list", "-q", "--format", "text"],
  ["health"],
  ...FORMATS.map((format) => ["health", "--format", format]),
  ["health", "--data-dir", ws.dataDir, "-q", "--format", "json"]
]

/** Command lines the fast paths leave to @effect/cli (help, errors, unusual shapes, --max-tokens). */
const declined: ReadonlyArray<ReadonlyArray<string>> = [
  ["show"],
  ["show", "--help"],
  ["show", "notes//guide", "--max-tokens", "20"],
  ["show", "notes//guide", "--level", "summary"],
  ["show", "notes//guide", "--level=card"],
  ["show", "notes//guide", "extra"],
  ["show", "notes//guide", "--no-track", "yes"],
  ["show", "notes//guide", "--format", "xml"],
  ["show", "notes//guide", "--lines", "-3"],
  ["show", "notes//nope"],
  ["show", "nope//guide"],
  ["show", "notes//guide#no-such-section"],
  ["show", "notes//guide", "--lines", "500:"],
  ["show", "notes//guide", "--bogus"],
  ["curate"],
  ["curate", "deploy", "--budget", "0"],
  ["curate", "deploy", "--budget", "05"],
  ["curate", "deploy", "--limit", "500"],
  ["curate", "deploy", "--bundle", "nope"],
  ["curate", "deploy", "the", "app"],
  ["curate", "deploy", "--limit", "1", "--limit", "2"],
  ["info", "extra"],
  ["info", "--help"],
  ["info", "--format"],
  ["bundle", "list", "extra"],
  ["bundle", "list", "--help"],
  ["bundle", "show", "notes"],
  ["health", "extra"],
  ["health", "--help"],
  ["--format", "json", "info"]
]

describe("fast paths of the read commands", () => {
  const ws = makeWorkspace()
  afterAll(ws.cleanup)

  beforeAll(async () => {
    for (const [files, name] of [[notesFiles, "notes"], [skillsFiles, "skills"], [secretsFiles, "vault"]] as const) {
      const added = await ws.run(["bundle", "add", ws.folder(name, files), "--name", name])
      expect(added.code, added.stderr).toBe(0)
    }
    // A second bundle with a `guide` too: a short ref names the default bundle's and warns on stderr.
    expect((await ws.run(["bundle", "add", ws.folder("more", { "guide.md": "# Another guide\n" }), "--name", "more"])).code).toBe(0)
    expect((await ws.run(["index", "--quiet"])).code).toBe(0)
  }, 90_000)

  it("parse only plain command lines, and decline the rest", () => {
    for (const args of answered(ws)) expect(parseFastArgv(PATHS[args[0]!]!.spec, args), args.join(" ")).toBeDefined()
    expect(parseFastArgv(SHOW_SPEC, ["show", "a//b", "--level", "card", "-q", "--format", "md"])).toMatchObject({
      positionals: ["a//b"],
      format: "md",
      quiet: true,
      verbose: false,
      configDir: undefined
    })
    expect(parseFastArgv(CURATE_SPEC, ["curate", "x", "--bundle", "a", "--bundle", "b"])?.values.get("--bundle")).toEqual(["a", "b"])
  })

  // Runs before curate caches counts of these items.
  it("show prints the cached exact count or bytes/4 flagged as an estimate, and never loads the tokenizer (spec 04 §4)", async () => {
    const estimated = JSON.parse((await runFast(ws, ["show", "notes//runbook", "--no-track", "--format", "json"])).stdout)
    expect(estimated).toMatchObject({ tokensEstimated: true, contentTokensEstimated: true })
    expect(estimated.tokens).toBe(Math.ceil(Buffer.byteLength(notesFiles["runbook.md"]!) / 4))
    // --max-tokens counts exactly (full CLI) and caches the count: show then prints it.
    expect((await ws.run(["show", "notes//runbook", "--max-tokens", "1000", "--no-track"])).code).toBe(0)
    const exact = JSON.parse((await runFast(ws, ["show", "notes//runbook", "--no-track", "--format", "json"])).stdout)
    expect(exact.tokensEstimated).toBe(false)
    expect(exact.contentTokensEstimated).toBeUndefined()
    expect(exact.tokens).toBe(exact.contentTokens)
    const loaded = await runNodeScript(
      `require(${distCli("show")}).runShow(${ARGV}).then((code) => { process.stdout.write("\\n" + JSON.stringify(Object.keys(require.cache).filter((k) => k.includes("gpt-tokenizer")))); process.exitCode = code })`,
      ["show", "notes//guide", "--format", "json", "--no-track"],
      ws
    )
    expect(loaded.stdout.split("\n").at(-1)).toBe("[]")
  }, 60_000)

  it("print what the full CLI prints and record the same usage event", async () => {
    for (const args of answered(ws)) {
      const fast = await runFast(ws, args)
      expect(fast.stderr, args.join(" ")).not.toContain("FALLBACK")
      const fastUsage = lastUsage(ws)
      const full = await runFull(ws, args)
      const fullUsage = lastUsage(ws)
      expect({ code: fast.code, stdout: fast.stdout, stderr: fast.stderr }, args.join(" ")).toEqual({ code: full.code, stdout: full.stdout, stderr: full.stderr })
      if (fastUsage !== undefined && fullUsage !== undefined) {
        const { id: fastId, ...fastEvent } = fastUsage as { id: number }
        const { id: fullId, ...fullEvent } = fullUsage as { id: number }
        expect(fastEvent, args.join(" ")).toEqual(fullEvent)
        // Both recorded one (show, curate) or neither did (--no-track, info, bundle list).
        expect(fullId - fastId, args.join(" ")).toBe(fastId === fullId ? 0 : 1)
      }
      expect(fast.stdout + fast.stderr, args.join(" ")).not.toContain(CANARY)
    }
  }, 480_000)

  it("hand every other command line to the full CLI, which bin/akm.js then runs", async () => {
    for (const args of declined) {
      if (PATHS[args[0]!] === undefined) continue
      const fast = await runFast(ws, args)
      expect({ code: fast.code, stdout: fast.stdout, stderr: fast.stderr }, args.join(" ")).toEqual({ code: 99, stdout: "", stderr: "FALLBACK" })
    }
    for (const args of [["show", "notes//nope"], ["show", "notes//guide", "--max-tokens", "20", "--format", "json"], ["curate", "deploy", "--limit", "500"], ["info", "--help"]]) {
      const viaBin = await ws.run(args)
      const full = await runFull(ws, args)
      expect({ code: viaBin.code, stdout: viaBin.stdout, stderr: viaBin.stderr }, args.join(" ")).toEqual(full)
    }
  }, 120_000)
})

describe("the health fast path with logs.db", () => {
  const ws = makeWorkspace()
  afterAll(ws.cleanup)

  it("reads an existing logs.db and prints what the full CLI prints", async () => {
    expect((await ws.run(["bundle", "add", ws.folder("notes", notesFiles), "--name", "notes"])).code).toBe(0)
    expect((await ws.run(["index", "--quiet"])).code).toBe(0)
    // init creates logs.db: health then reads it (and reports its size) on both paths.
    expect((await ws.run(["init"])).code).toBe(0)
    for (const format of ["json", "text"]) {
      const fast = await runFast(ws, ["health", "--format", format])
      const full = await runFull(ws, ["health", "--format", format])
      expect(fast.stderr).not.toContain("FALLBACK")
      expect(fast).toEqual(full)
    }
    expect(JSON.parse((await runFast(ws, ["health", "--format", "json"])).stdout).databases.find((d: { name: string }) => d.name === "logs.db").bytes).toBeGreaterThan(0)
  }, 120_000)
})

describe("the fast bundles", () => {
  it("stay small and carry neither the CLI framework's parser nor the tokenizer's ranks", async () => {
    for (const name of ["show", "curate", "info", "bundle-list", "health"]) {
      const bundle = readFileSync(join(repoRoot, "dist", "cli", `${name}.cjs`), "utf8")
      // About 440-490 KB today (search.cjs 420 KB): effect's runtime, Schema and yaml are most of it.
      expect(bundle.length, name).toBeLessThan(600_000)
      expect(bundle, name).not.toContain("import(")
      // A message of @effect/cli's parser (main.cjs has it): the framework is not bundled.
      expect(bundle, name).not.toContain("Expected to find option")
      // Loaded from node_modules on a first count, never inlined (2.7 MB of ranks).
      expect(bundle, name).toContain('require("gpt-tokenizer/encoding/o200k_base")')
    }
  })
})

describe("help from dist/cli/help.json", () => {
  const ws = makeWorkspace()
  afterAll(ws.cleanup)

  it("bin/akm.js prints every command's help exactly as the full CLI renders it, and leaves other shapes to it", async () => {
    const texts = JSON.parse(readFileSync(join(repoRoot, "dist", "cli", "help.json"), "utf8")) as Record<string, string>
    expect(Object.keys(texts)).toEqual(expect.arrayContaining(["", "search", "show", "bundle", "bundle list", "proposal accept"]))
    const lines = [[], ["--help"], ["-h"], ...Object.keys(texts).filter((key) => key !== "").map((key) => [...key.split(" "), "--help"]), ["bundle", "list", "-h"]]
    for (const args of lines) {
      const viaBin = await ws.run(args)
      const full = await runFull(ws, args)
      expect({ code: viaBin.code, stdout: viaBin.stdout, stderr: viaBin.stderr }, args.join(" ")).toEqual(full)
      expect(viaBin.stdout, args.join(" ")).toBe(texts[args.filter((word) => !word.startsWith("-")).join(" ")])
    }
    // Not help shapes of the file: the CLI settles them (a usage error, help after an argument).
    for (const args of [["--format", "json", "--help"], ["show", "x", "--help"], ["nope", "--help"]]) {
      const viaBin = await ws.run(args)
      expect({ code: viaBin.code, stdout: viaBin.stdout, stderr: viaBin.stderr }, args.join(" ")).toEqual(await runFull(ws, args))
    }
  }, 480_000)
})
