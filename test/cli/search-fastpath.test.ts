import Database from "better-sqlite3"
import { rmSync, writeFileSync } from "node:fs"
import { join } from "node:path"
import { afterAll, beforeAll, describe, expect, it } from "vitest"
import { parseSearchArgv } from "../../src/cli/fast/searchArgv.js"
import { FORMATS } from "../../src/cli/options.js"
import { itemRowAt } from "../../src/layers/sqlite/index/query.js"
import { ITEM_COLUMNS } from "../../src/layers/sqlite/index/rows.js"
import { makeWorkspace, type Workspace } from "../support/cli.js"
import { runFastPath, runFull } from "../support/fastPathRuns.js"

// The start-up fast path of `akm search` (src/cli/fast/, docs/decisions/0002-start-up.md):
// for every command line it answers, bin/akm.js prints the same bytes, exit code
// and usage event as the full @effect/cli command; everything else goes to the
// full CLI untouched.

const runFast = (ws: Workspace, args: ReadonlyArray<string>, env?: Readonly<Record<string, string>>) => runFastPath("search", "runSearch", ws, args, env)

/** Only the time a search took may differ between two runs. */
const timeless = (text: string): string => text.replace(/("timingMs": ?|timingMs: )[\d.]+/g, "$1<t>").replace(/[\d.]+ ms(?=\n|$)/g, "<t> ms")

const lastUsage = (ws: Workspace) => {
  const db = new Database(join(ws.dataDir, "state.db"), { readonly: true })
  try {
    return db.prepare("SELECT kind, query, refs, source FROM usage_events ORDER BY id DESC LIMIT 1").get()
  } finally {
    db.close()
  }
}

const stash = {
  "skills/docker-homelab/SKILL.md": "---\nname: docker-homelab\ndescription: Deploy and manage docker compose services in a homelab\ntags: [docker, homelab]\n---\n# Docker homelab\n\nUse docker compose.\n",
  "knowledge/docker-clean.md": "---\ndescription: Clean up unused docker images and volumes\nscope_project: ops\n---\n# Docker clean\n",
  "knowledge/old-docker.md": "---\ndescription: The old docker notes\nsupersededBy: knowledge/docker-clean\n---\n# Old docker\n",
  "knowledge/draft.md": "---\ndescription: A proposed docker draft\nquality: proposed\n---\n# Draft\n",
  "commands/deploy.md": "---\ndescription: Deploy the app to production with docker\n---\n# Deploy\n",
  "knowledge/what's-c++.md": "---\ndescription: Notes on c++ and what's new\n---\n# C++\n"
}

/** Command lines the fast path answers; each is compared with the full CLI. */
const answered = (ws: Workspace): ReadonlyArray<ReadonlyArray<string>> => [
  ["search", "docker"],
  ["search", "docker", "compose", "--format", "json"],
  ["search", "docker compose", "--format", "text"],
  ...FORMATS.map((format) => ["search", "docker", "--format", format]),
  ["search", "--limit", "1", "docker"],
  ["search", "docker", "--limit", "200"],
  ["search", "docker", "--type", "skill", "--type", "knowledge"],
  ["search", "docker", "--type", "SKILL", "--format", "text"],
  ["search", "docker", "--type", "nothing", "--bundle", "stash", "--format", "text"],
  ["search", "docker", "--format", "md"],
  ["search", "docker", "--bundle", "stash", "--adapter", "akm", "--format", "text"],
  ["search", "docker", "--belief", "all", "--include-proposed"],
  ["search", "docker", "--belief", "historical"],
  ["search", "commands/"],
  ["search", "stash//", "--format", "text"],
  ["search"],
  ["search", "xyznonexistent", "--format", "text"],
  ["search", "\"docker compose\""],
  ["search", "dock"],
  ["search", "ock"],
  ["search", "c++", "what's"],
  ["search", "scope_project=ops", "docker", "yes"],
  ["search", "docker", "--no-track"],
  ["search", "-q", "docker", "--verbose"],
  ["search", "docker", "-v", "--quiet"],
  ["search", "docker", "--config-dir", ws.configDir, "--data-dir", ws.dataDir, "--cache-dir", ws.cacheDir],
  // `--` ends the options: every word after it is a query word, whatever it looks like.
  ["search", "--format", "json", "--", "docker"],
  ["search", "--", "docker", "compose"],
  ["search", "--limit", "2", "--format", "text", "--", "docker"],
  ["search", "--", "-docker"],
  ["search", "docker", "--", "--limit", "3"],
  ["search", "--no-track", "--", "docker", "--", "compose"]
]

/** Command lines the fast path leaves to @effect/cli. */
const declined: ReadonlyArray<ReadonlyArray<string>> = [
  ["search", "--help"],
  ["search", "-h"],
  ["search", "docker", "--filter", "project=ops"],
  ["search", "docker", "--limit", "0"],
  ["search", "docker", "--limit", "-1"],
  ["search", "docker", "--limit", "201"],
  ["search", "docker", "--limit", "500"],
  ["search", "docker", "--limit", "05"],
  ["search", "docker", "--limit", "two"],
  ["search", "docker", "--limit", "1", "--limit", "2"],
  ["search", "--limit=3", "docker"],
  ["search", "docker", "--no-track", "yes"],
  ["search", "docker", "--include-proposed", "false"],
  ["search", "docker", "--format", "xml"],
  ["search", "docker", "--format"],
  ["search", "docker", "--belief", "past"],
  ["search", "docker", "--types", "skill"],
  ["search", "-x", "docker"],
  ["search", " docker"],
  ["search", "--", " docker"],
  ["search", ""],
  ["search", "docker", "--bundle", "-stash"],
  ["search", "docker", "--limt", "3"],
  ["--format", "json", "search", "docker"],
  ["info"]
]

describe("akm search fast path", () => {
  const ws = makeWorkspace()
  afterAll(ws.cleanup)

  beforeAll(async () => {
    const added = await ws.run(["bundle", "add", ws.folder("stash", stash), "--name", "stash", "--adapter", "akm"])
    expect(added.code, added.stderr).toBe(0)
    // A second bundle whose folder is gone: the next index keeps its rows and marks it stale.
    const gone = ws.folder("gone", { "knowledge/docker-gone.md": "---\ndescription: Docker notes that went away\n---\n# Gone\n" })
    expect((await ws.run(["bundle", "add", gone, "--name", "gone"])).code).toBe(0)
    rmSync(gone, { recursive: true, force: true })
    await ws.run(["index"])
  }, 60_000)

  it("serves `akm search --format json -- \"q\"` on the fast path (agents pass -- routinely)", async () => {
    const fast = await runFast(ws, ["search", "--format", "json", "--", "docker compose"])
    expect(fast.stderr).toBe("")
    expect(fast.code).toBe(0)
    expect(JSON.parse(fast.stdout).query).toBe("docker compose")
  })

  it("parses only plain command lines, and declines the rest", () => {
    for (const args of answered(ws)) expect(parseSearchArgv(args), args.join(" ")).toBeDefined()
    for (const args of declined) expect(parseSearchArgv(args), args.join(" ")).toBeUndefined()
    expect(parseSearchArgv(["search", "a", "b", "--type", "skill", "--type", "agent", "--limit", "7", "--format", "md", "-q"])).toEqual({
      options: { query: ["a", "b"], bundle: [], type: ["skill", "agent"], adapter: [], belief: "current", includeProposed: false, filter: undefined, limit: 7, noTrack: false },
      format: "md",
      quiet: true,
      verbose: false,
      configDir: undefined,
      dataDir: undefined,
      cacheDir: undefined
    })
  })

  it("prints what the full CLI prints and records the same usage event", async () => {
    for (const args of answered(ws)) {
      const fast = await runFast(ws, args)
      expect(fast.stderr, args.join(" ")).not.toContain("FALLBACK")
      const fastUsage = lastUsage(ws)
      const full = await runFull(ws, args)
      const fullUsage = lastUsage(ws)
      expect({ code: fast.code, stdout: timeless(fast.stdout), stderr: fast.stderr }, args.join(" ")).toEqual({ code: full.code, stdout: timeless(full.stdout), stderr: full.stderr })
      expect(fastUsage, args.join(" ")).toEqual(fullUsage)
    }
  }, 120_000)

  it("--limit outside 1–200 is a usage error naming the range, the same through bin/akm.js (fast path first) and the full CLI", async () => {
    for (const limit of ["0", "201", "500"]) {
      const args = ["search", "docker", "--limit", limit, "--format", "text"]
      const viaBin = await ws.run(args)
      const full = await runFull(ws, args)
      expect({ code: viaBin.code, stdout: viaBin.stdout, stderr: viaBin.stderr }, limit).toEqual(full)
      expect(full.code, limit).toBe(2)
      expect(full.stderr, limit).toBe(`error: --limit must be between 1 and 200, not ${limit}\nhint: e.g. --limit 10\n`)
    }
  }, 60_000)

  it("an unknown --bundle is exit 1 naming it and the bundles there are: the fast path hands it over before printing a byte", async () => {
    for (const args of [["search", "docker", "--bundle", "nope"], ["search", "docker", "--bundle", "stash", "--bundle", "nope", "--format", "text"]]) {
      expect(await runFast(ws, args), args.join(" ")).toEqual({ code: 99, stdout: "", stderr: "FALLBACK" })
      const viaBin = await ws.run(args)
      const full = await runFull(ws, args)
      expect({ code: viaBin.code, stdout: viaBin.stdout, stderr: viaBin.stderr }, args.join(" ")).toEqual(full)
      expect(full.code).toBe(1)
      expect(full.stdout).toBe("")
    }
    const json = JSON.parse((await ws.run(["search", "docker", "--bundle", "nope"])).stderr)
    expect(json.error).toEqual({ code: "not_found", message: "no bundle named 'nope'", hint: "configured bundles: gone, stash" })
    expect((await ws.run(["search", "docker", "--bundle", "stash", "--bundle", "nope", "--format", "text"])).stderr).toBe("error: no bundle named 'nope'\nhint: configured bundles: gone, stash\n")
  }, 60_000)

  it("a query of 17,000 words: the first 64 distinct terms are searched, on both paths (JSON says so; text notes it on stderr)", async () => {
    const words = Array.from({ length: 17_000 }, (_, i) => `w${i.toString(36)}x`)
    const query = ["docker", ...words].join(" ")
    for (const format of ["json", "text"]) {
      const args = ["search", "--format", format, "--no-track", "--", query]
      const fast = await runFast(ws, args)
      const full = await runFull(ws, args)
      expect(fast.stderr, format).not.toContain("FALLBACK")
      expect({ code: fast.code, stdout: timeless(fast.stdout), stderr: fast.stderr }, format).toEqual({ code: full.code, stdout: timeless(full.stdout), stderr: full.stderr })
      expect(full.code, full.stderr).toBe(0)
      if (format === "json") {
        const result = JSON.parse(full.stdout)
        expect(result.queryTruncated).toEqual({ kept: 64, dropped: 17_001 - 64 })
        expect(result.hits.map((h: { ref: string }) => h.ref)).toContain("stash//skills/docker-homelab")
        expect(full.stderr).toBe("")
      } else {
        expect(full.stderr).toBe(`note: the query has 17001 distinct terms; searched for the first 64\n`)
        expect(full.stdout).toContain("stash//skills/docker-homelab")
      }
    }
    // Not truncated: no field, no note.
    expect(JSON.parse((await runFast(ws, ["search", "docker", "--format", "json"])).stdout)).not.toHaveProperty("queryTruncated")
    const quiet = await runFull(ws, ["search", "--format", "text", "-q", "--no-track", "--", query])
    expect(quiet.stderr).toBe("")
  }, 120_000)

  it("the json and text views carry the stale bundle", async () => {
    const json = await runFast(ws, ["search", "docker", "--format", "json"])
    expect(JSON.parse(json.stdout).stale).toEqual(["gone"])
    expect((await runFast(ws, ["search", "docker", "--format", "text"])).stdout).toContain("stale: gone")
  })

  it("marks the event source from AKM_EVENT_SOURCE as the full CLI does", async () => {
    const env = { AKM_EVENT_SOURCE: "agent" }
    await runFast(ws, ["search", "deploy"], env)
    const fast = lastUsage(ws)
    await runFull(ws, ["search", "deploy"], env)
    expect(fast).toEqual(lastUsage(ws))
    expect(fast).toMatchObject({ source: "agent", query: "deploy" })
  })

  it("hands every other command line to the full CLI, which bin/akm.js then runs", async () => {
    for (const args of declined) {
      const fast = await runFast(ws, args)
      expect({ code: fast.code, stdout: fast.stdout, stderr: fast.stderr }, args.join(" ")).toEqual({ code: 99, stdout: "", stderr: "FALLBACK" })
    }
    for (const args of [["search", "--help"], ["search", "docker", "--filter", "project=ops"], ["search", "docker", "--limit", "0"], ["search", "docker", "--limit", "500", "--format", "text"], ["search", "-x", "docker"]]) {
      const viaBin = await ws.run(args)
      const full = await runFull(ws, args)
      expect({ code: viaBin.code, stdout: timeless(viaBin.stdout), stderr: viaBin.stderr }, args.join(" ")).toEqual({ code: full.code, stdout: timeless(full.stdout), stderr: full.stderr })
    }
  }, 120_000)
})

/** Misspelt or unknown options: a usage error (exit 2) on both paths, never query words. */
const misspelt: ReadonlyArray<ReadonlyArray<string>> = [
  ["search", "retry", "--limt", "3"],
  ["search", "retry", "--limt", "3", "--format", "text"],
  ["search", "--limt=3", "docker", "--format", "json"],
  ["search", "docker", "--types", "skill", "--format", "text"],
  ["search", "-x", "docker"],
  ["--format", "text", "search", "docker", "--bogus"]
]

describe("akm search: unknown options", () => {
  const ws = makeWorkspace()
  afterAll(ws.cleanup)

  beforeAll(async () => {
    expect((await ws.run(["bundle", "add", ws.folder("notes", { "retry.md": "# Retry\n\nBack off and retry.\n" }), "--name", "notes"])).code).toBe(0)
    expect((await ws.run(["search", "retry"])).code).toBe(0)
  }, 60_000)

  const usageCount = () => {
    const db = new Database(join(ws.dataDir, "state.db"), { readonly: true })
    try {
      return (db.prepare("SELECT count(*) AS n FROM usage_events").get() as { n: number }).n
    } finally {
      db.close()
    }
  }

  it("are a usage error with the same bytes through bin/akm.js (fast path first) and the full CLI, and record nothing", async () => {
    for (const args of misspelt) {
      const before = usageCount()
      const fast = await runFast(ws, args)
      expect(fast, args.join(" ")).toEqual({ code: 99, stdout: "", stderr: "FALLBACK" })
      const viaBin = await ws.run(args)
      const full = await runFull(ws, args)
      expect({ code: viaBin.code, stdout: viaBin.stdout, stderr: viaBin.stderr }, args.join(" ")).toEqual(full)
      expect(full.code, args.join(" ")).toBe(2)
      expect(full.stdout, args.join(" ")).toBe("")
      expect(usageCount(), args.join(" ")).toBe(before)
      if (args.includes("text")) expect(full.stderr, args.join(" ")).toMatch(/^error: unknown option '-/)
      else expect(JSON.parse(full.stderr).error.code, args.join(" ")).toBe("usage")
    }
  }, 120_000)

  it("name the option and suggest the one meant", async () => {
    const full = await runFull(ws, ["search", "retry", "--limt", "3", "--format", "text"])
    expect(full.stderr).toBe([
      "error: unknown option '--limt' for `akm search`; did you mean '--limit'?",
      "hint: run `akm search --help` for its options; put `--` before an argument that starts with -",
      ""
    ].join("\n"))
  })

  it("after --, option-like words are searched for, on the fast path", async () => {
    const fast = await runFast(ws, ["search", "--format", "json", "--", "retry", "--limt"])
    expect(fast.stderr).not.toContain("FALLBACK")
    expect(fast.code).toBe(0)
    expect(JSON.parse(fast.stdout).query).toBe("retry --limt")
  })
})

describe("the search statements", () => {
  it("read the columns of ITEM_COLUMNS as values, in their order", () => {
    // Each column ends in `AS alias`, then a comma or the end (an expression may hold commas of its own).
    const aliases = [...ITEM_COLUMNS.matchAll(/\sAS\s+(\w+)\s*(?:,|$)/g)].map((m) => m[1])
    expect(Object.keys(itemRowAt(aliases))).toEqual(aliases)
    expect(Object.values(itemRowAt(aliases))).toEqual(aliases)
    expect(Object.values(itemRowAt(["x", ...aliases], 1))).toEqual(aliases)
  })
})

describe("akm search fast path: workspaces it leaves to the full CLI", () => {
  it("a missing index.db (R-WS-2), then an invalid config", async () => {
    const ws = makeWorkspace()
    try {
      expect((await ws.run(["bundle", "add", ws.folder("notes", { "deploy.md": "# Deploy\n\nShip it.\n" }), "--name", "notes"])).code).toBe(0)
      for (const suffix of ["", "-wal", "-shm"]) rmSync(join(ws.cacheDir, `index.db${suffix}`), { force: true })
      expect((await runFast(ws, ["search", "deploy"])).stderr).toBe("FALLBACK")
      const rebuilt = await ws.run(["search", "deploy", "--format", "json"])
      expect(rebuilt.code, rebuilt.stderr).toBe(0)
      expect(JSON.parse(rebuilt.stdout).hits[0].ref).toBe("notes//deploy")
      expect((await runFast(ws, ["search", "deploy"])).code).toBe(0)

      writeFileSync(join(ws.configDir, "config.yaml"), "bundles: [oops\n")
      const usagesBefore = new Database(join(ws.dataDir, "state.db"), { readonly: true })
      const count = () => (usagesBefore.prepare("SELECT count(*) AS n FROM usage_events").get() as { n: number }).n
      const before = count()
      expect((await runFast(ws, ["search", "deploy"])).stderr).toBe("FALLBACK")
      expect(count()).toBe(before)
      usagesBefore.close()
      const viaBin = await ws.run(["search", "deploy"])
      const full = await runFull(ws, ["search", "deploy"])
      expect(viaBin.code).toBe(78)
      expect({ code: viaBin.code, stdout: viaBin.stdout, stderr: viaBin.stderr }).toEqual({ code: full.code, stdout: full.stdout, stderr: full.stderr })
      // With --limit the config is not read (R-SRCH-1): the fast path answers.
      expect((await runFast(ws, ["search", "deploy", "--limit", "3"])).code).toBe(0)
    } finally {
      ws.cleanup()
    }
  }, 60_000)

  it("a fresh workspace: nothing is created before the full CLI runs", async () => {
    const ws = makeWorkspace()
    try {
      expect((await runFast(ws, ["search", "anything"])).stderr).toBe("FALLBACK")
      const { existsSync } = await import("node:fs")
      expect(existsSync(join(ws.cacheDir, "index.db"))).toBe(false)
      expect(existsSync(join(ws.dataDir, "state.db"))).toBe(false)
    } finally {
      ws.cleanup()
    }
  })
})
