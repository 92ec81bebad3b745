import { describe, expect, it } from "@effect/vitest"
import { build } from "esbuild"
import { spawn } from "node:child_process"
import * as fs from "node:fs"
import * as path from "node:path"
import { fileURLToPath } from "node:url"
import { Effect } from "effect"
import { ConfigInvalid, WorkspaceUnavailable } from "../../src/domain/Errors.js"
import { emptyLock, type LockedBundle } from "../../src/domain/Lock.js"
import { workspacePaths, type WorkspacePaths } from "../../src/domain/Paths.js"
import { makeWorkspaceConfig } from "../../src/layers/fs/WorkspaceConfigFile.js"
import type { ConfigEditor } from "../../src/services/WorkspaceConfig.js"
import { tempDir } from "./tempDir.js"

/** The workspace of one test: config, data and cache dirs under a temp root. */
const pathsUnder = (root: string): WorkspacePaths =>
  workspacePaths({}, root, path.join, {
    configDir: path.join(root, "config"),
    dataDir: path.join(root, "data"),
    cacheDir: path.join(root, "cache")
  })

const workspace = (name: string, configText?: string) =>
  Effect.gen(function* () {
    const root = yield* tempDir(name)
    const paths = pathsUnder(root)
    if (configText !== undefined) {
      fs.mkdirSync(paths.configDir, { recursive: true })
      fs.writeFileSync(paths.configFile, configText)
    }
    return { root, paths, ws: makeWorkspaceConfig(paths) }
  })

const lockedBundle = (root: string): LockedBundle => ({
  source: { kind: "filesystem", locator: root },
  revision: null,
  root,
  adapter: { id: "okf", version: "1" },
  installedAt: "2025-01-01T00:00:00.000Z",
  updatedAt: "2025-01-01T00:00:00.000Z"
})

const commented = `# akm configuration, edited by hand
defaultBundle: notes   # where new items go

# Bundles, aligned on purpose
bundles:
  # personal notes
  notes:    { source: { kind: filesystem, path: /srv/notes }, adapter: okf, writable: true }
  team:     { source: { kind: git, url: https://github.com/acme/kb.git, ref: main }, writable: false, refresh: 12h }
  skills:
    source:
      kind: npm            # read-only copy
      package: "@acme/agent-skills"
      version: "^2"
    refresh: 7d # weekly
search:   { limit: 20 }   # results per query
logs:
  retentionDays: 90
# end of file
`

/** The same text with exactly one span replaced, failing if the span is not there once. */
const replacedOnce = (text: string, from: string, to: string): string => {
  expect(text.split(from)).toHaveLength(2)
  return text.replace(from, to)
}

const commentLines = (text: string): ReadonlyArray<string> =>
  text.split("\n").filter((line) => line.includes("#")).map((line) => line.slice(line.indexOf("#")).trim())

const topLevelKeys = (text: string): ReadonlyArray<string> =>
  text.split("\n").filter((line) => /^[A-Za-z]/.test(line)).map((line) => line.slice(0, line.indexOf(":")))

describe("WorkspaceConfigFile: config.yaml", () => {
  it.scoped("a missing config reads as the empty config, and nothing is created by reading", () =>
    Effect.gen(function* () {
      const { paths, ws } = yield* workspace("ws-missing")
      expect(yield* ws.read).toEqual({ bundles: {} })
      expect(yield* ws.readText).toBeUndefined()
      expect(fs.existsSync(paths.configDir)).toBe(false)
    }))

  it.scoped("reads a valid hand-written config with comments", () =>
    Effect.gen(function* () {
      const { ws } = yield* workspace("ws-read", commented)
      const config = yield* ws.read
      expect(config.defaultBundle).toBe("notes")
      expect(Object.keys(config.bundles)).toEqual(["notes", "team", "skills"])
      expect(config.bundles.skills).toEqual({ source: { kind: "npm", package: "@acme/agent-skills", version: "^2" }, refresh: "7d" })
      expect(config.search).toEqual({ limit: 20 })
      expect(yield* ws.readText).toBe(commented)
    }))

  it.scoped("setting existing values changes only those values, byte for byte (R-WS-5)", () =>
    Effect.gen(function* () {
      const { paths, ws } = yield* workspace("ws-set", commented)
      const config = yield* ws.update((editor) => editor.set(["search", "limit"], 30))
      expect(config.search?.limit).toBe(30)
      let expected = replacedOnce(commented, "{ limit: 20 }", "{ limit: 30 }")
      expect(fs.readFileSync(paths.configFile, "utf8")).toBe(expected)

      yield* ws.update((editor) => {
        editor.set(["bundles", "skills", "refresh"], "1d")
        editor.set(["bundles", "team", "source", "ref"], "release")
        editor.set(["bundles", "notes", "writable"], false)
        editor.set(["defaultBundle"], "team")
      })
      expected = replacedOnce(expected, "refresh: 7d # weekly", "refresh: 1d # weekly")
      expected = replacedOnce(expected, "ref: main }", "ref: release }")
      expected = replacedOnce(expected, "adapter: okf, writable: true }", "adapter: okf, writable: false }")
      expected = replacedOnce(expected, "defaultBundle: notes   #", "defaultBundle: team   #")
      expect(fs.readFileSync(paths.configFile, "utf8")).toBe(expected)
      expect((yield* ws.read).bundles.team?.source).toEqual({ kind: "git", url: "https://github.com/acme/kb.git", ref: "release" })
    }))

  it.scoped("a string that would read as another type is written so it stays a string", () =>
    Effect.gen(function* () {
      const { ws } = yield* workspace("ws-set-string", commented)
      yield* ws.update((editor) => editor.set(["bundles", "skills", "source", "version"], "2"))
      expect((yield* ws.read).bundles.skills?.source).toMatchObject({ version: "2" })
      yield* ws.update((editor) => editor.set(["bundles", "team", "source", "ref"], "true"))
      expect((yield* ws.read).bundles.team?.source).toMatchObject({ ref: "true" })
      yield* ws.update((editor) => editor.set(["bundles", "team", "source", "ref"], "a, b: {c}"))
      expect((yield* ws.read).bundles.team?.source).toMatchObject({ ref: "a, b: {c}" })
    }))

  it.scoped("adding and deleting keys keeps every other comment and the key order (R-WS-5)", () =>
    Effect.gen(function* () {
      const { paths, ws } = yield* workspace("ws-add", commented)
      yield* ws.update((editor) => {
        editor.set(["bundles", "docs"], { source: { kind: "website", url: "https://docs.example.com/" }, refresh: "12h" })
        editor.set(["website"], { allowHosts: ["docs.example.com"] })
        editor.delete(["logs"])
      })
      const text = fs.readFileSync(paths.configFile, "utf8")
      expect(commentLines(text)).toEqual(commentLines(commented))
      expect(topLevelKeys(text)).toEqual(["defaultBundle", "bundles", "search", "website"])
      const config = yield* ws.read
      expect(Object.keys(config.bundles)).toEqual(["notes", "team", "skills", "docs"])
      expect(config.logs).toBeUndefined()
      expect(config.website).toEqual({ allowHosts: ["docs.example.com"] })
    }))

  it.scoped("the first update creates config.yaml with a header", () =>
    Effect.gen(function* () {
      const { paths, ws } = yield* workspace("ws-create")
      const config = yield* ws.update((editor) => editor.set(["search", "limit"], 5))
      expect(config).toEqual({ bundles: {}, search: { limit: 5 } })
      const text = fs.readFileSync(paths.configFile, "utf8")
      expect(text.startsWith("#")).toBe(true)
      expect(yield* ws.read).toEqual(config)
    }))

  const invalidConfigs: ReadonlyArray<{ name: string; text: string; path: RegExp; reason: RegExp }> = [
    { name: "bad YAML", text: "bundles:\n  notes: [\n", path: /line \d+/, reason: /invalid YAML/ },
    { name: "a duplicated key", text: "search: {limit: 1}\nsearch: {limit: 2}\n", path: /line 2/, reason: /invalid YAML/ },
    { name: "a value of the wrong type", text: "# results\nsearch:\n  limit: \"x\"\n", path: /^search\.limit \(line 3\)$/, reason: /number/ },
    { name: "a value out of range", text: "search: {limit: 0}\n", path: /^search\.limit \(line 1\)$/, reason: /1/ },
    { name: "a misspelt key", text: "# typo below\nbundels: {}\n", path: /^bundels \(line 2\)$/, reason: /unknown key/ },
    {
      name: "writable on an npm source",
      text: "bundles:\n  skills:\n    source: {kind: npm, package: x}\n    writable: true\n",
      path: /^bundles\.skills\.writable \(line 4\)$/,
      reason: /npm.*read-only/
    },
    {
      name: "a defaultBundle that is not configured",
      text: "defaultBundle: notes\nbundles: {}\n",
      path: /^defaultBundle \(line 1\)$/,
      reason: /notes.*not configured/
    },
    {
      name: "an invalid bundle name",
      text: "bundles:\n  bad.name:\n    source: {kind: filesystem, path: /x}\n",
      path: /bundles.*bad\.name.*\(line 2\)/,
      reason: /'\.'/
    },
    { name: "an unknown source kind", text: "bundles:\n  x:\n    source: {kind: svn, url: y}\n", path: /^bundles\.x\.source\.kind \(line 3\)$/, reason: /svn|filesystem/ },
    { name: "a bad refresh interval", text: "bundles:\n  x:\n    source: {kind: filesystem, path: /x}\n    refresh: soon\n", path: /^bundles\.x\.refresh \(line 4\)$/, reason: /30m, 12h/ },
    { name: "a top level that is not a mapping", text: "- just\n- a list\n", path: /^$/, reason: /mapping/ }
  ]

  for (const bad of invalidConfigs) {
    it.scoped(`${bad.name} is ConfigInvalid naming the file, key path, line and reason (R-WS-4)`, () =>
      Effect.gen(function* () {
        const { paths, ws } = yield* workspace("ws-invalid", bad.text)
        const error = yield* Effect.flip(ws.read)
        expect(error).toBeInstanceOf(ConfigInvalid)
        expect(error.file).toBe(paths.configFile)
        expect(error.path).toMatch(bad.path)
        expect(error.reason).toMatch(bad.reason)
        expect(error.hint).toContain(paths.configFile)
        expect(error.message).toContain(paths.configFile)
        expect(error.message).not.toMatch(/\n\s+at /)
        // An update that does not repair the problem reports it and leaves the file alone.
        expect(yield* Effect.flip(ws.update((editor) => editor.set(["logs", "retentionDays"], 30)))).toEqual(error)
        expect(fs.readFileSync(paths.configFile, "utf8")).toBe(bad.text)
      }))
  }

  it.scoped("an update that repairs an invalid value is written", () =>
    Effect.gen(function* () {
      const { paths, ws } = yield* workspace("ws-repair", "search:\n  limit: many # oops\n")
      expect(yield* ws.update((editor) => editor.set(["search", "limit"], 10))).toEqual({ bundles: {}, search: { limit: 10 } })
      expect(fs.readFileSync(paths.configFile, "utf8")).toBe("search:\n  limit: 10 # oops\n")
    }))

  it.scoped("an edit through a scalar is ConfigInvalid, not a crash", () =>
    Effect.gen(function* () {
      const { paths, ws } = yield* workspace("ws-through-scalar", "improve: { generator: local }\n")
      const error = yield* Effect.flip(ws.update((editor) => editor.set(["improve", "generator", "model"], "qwen3")))
      expect(error).toBeInstanceOf(ConfigInvalid)
      expect((error as ConfigInvalid).file).toBe(paths.configFile)
      expect(fs.readFileSync(paths.configFile, "utf8")).toBe("improve: { generator: local }\n")
    }))

  const invalidEdits: ReadonlyArray<{ name: string; edit: (editor: ConfigEditor) => void; path: RegExp }> = [
    { name: "a wrong type", edit: (editor) => editor.set(["search", "limit"], "many"), path: /^search\.limit/ },
    { name: "an unknown key", edit: (editor) => editor.set(["serach"], { limit: 3 }), path: /^serach/ },
    { name: "writable on an npm source", edit: (editor) => editor.set(["bundles", "skills", "writable"], true), path: /^bundles\.skills\.writable/ },
    { name: "an unconfigured default", edit: (editor) => editor.set(["defaultBundle"], "nope"), path: /^defaultBundle/ },
    { name: "a removed default bundle", edit: (editor) => editor.delete(["bundles", "notes"]), path: /^defaultBundle/ }
  ]

  for (const bad of invalidEdits) {
    it.scoped(`an update that would write ${bad.name} fails and writes nothing`, () =>
      Effect.gen(function* () {
        const { paths, ws } = yield* workspace("ws-invalid-edit", commented)
        const error = yield* Effect.flip(ws.update(bad.edit))
        expect(error).toBeInstanceOf(ConfigInvalid)
        expect((error as ConfigInvalid).path).toMatch(bad.path)
        expect(fs.readFileSync(paths.configFile, "utf8")).toBe(commented)
        expect(fs.readdirSync(paths.configDir)).toEqual(["config.yaml"])
      }))
  }
})

describe("WorkspaceConfigFile: akm.lock", () => {
  it.scoped("a missing lock reads as the empty lock", () =>
    Effect.gen(function* () {
      const { ws } = yield* workspace("lock-missing")
      expect(yield* ws.readLock).toEqual(emptyLock)
    }))

  it.scoped("updateLock writes valid JSON atomically, leaves no temp file, and readLock round-trips it", () =>
    Effect.gen(function* () {
      const { root, paths, ws } = yield* workspace("lock-write")
      const written = yield* ws.updateLock((lock) => ({ ...lock, bundles: { ...lock.bundles, notes: lockedBundle(root) } }))
      expect(written.bundles.notes).toEqual(lockedBundle(root))
      expect(JSON.parse(fs.readFileSync(paths.lockFile, "utf8"))).toEqual(written)
      expect(yield* ws.readLock).toEqual(written)

      const second = yield* ws.updateLock((lock) => ({ ...lock, bundles: { ...lock.bundles, team: { ...lockedBundle(root), revision: "abc123" } } }))
      expect(Object.keys(second.bundles)).toEqual(["notes", "team"])
      expect(yield* ws.readLock).toEqual(second)
      expect(fs.readdirSync(paths.dataDir).sort()).toEqual(["akm.lock", "locks"])
      expect(fs.readdirSync(paths.locksDir)).toEqual([])
    }))

  const corruptLocks: ReadonlyArray<readonly [string, string]> = [
    ["not JSON", "{ this is not json"],
    ["a truncated file", '{"lockfileVersion": 1, "bundles": {'],
    ["an unknown lock version", '{"lockfileVersion": 2, "bundles": {}}'],
    ["an entry missing its root", '{"lockfileVersion": 1, "bundles": {"x": {"source": {"kind": "npm", "locator": "npm:x"}, "revision": null}}}']
  ]

  for (const [name, text] of corruptLocks) {
    it.scoped(`a lock with ${name} is ConfigInvalid naming akm.lock, and updateLock leaves it alone`, () =>
      Effect.gen(function* () {
        const { paths, ws } = yield* workspace("lock-corrupt")
        fs.mkdirSync(paths.dataDir, { recursive: true })
        fs.writeFileSync(paths.lockFile, text)
        const error = yield* Effect.flip(ws.readLock)
        expect(error).toBeInstanceOf(ConfigInvalid)
        expect(error.file).toBe(paths.lockFile)
        expect(error.reason).not.toBe("")
        expect(yield* Effect.flip(ws.updateLock(() => emptyLock))).toBeInstanceOf(ConfigInvalid)
        expect(fs.readFileSync(paths.lockFile, "utf8")).toBe(text)
      }))
  }

  it.live("concurrent updateLock calls from two processes all land (no lost update)", () =>
    Effect.scoped(
      Effect.gen(function* () {
        const { root, ws } = yield* workspace("lock-race")
        const script = path.join(yield* tempDir("lock-race-script"), "update-lock.mjs")
        yield* Effect.promise(() => bundleLockWriter(script))
        const perProcess = 20
        const codes = yield* Effect.promise(() => runTogether(script, root, [["left", String(perProcess)], ["right", String(perProcess)]]))
        expect(codes).toEqual([0, 0])
        const names = Object.keys((yield* ws.readLock).bundles).sort()
        const expected = ["left", "right"].flatMap((who) => Array.from({ length: perProcess }, (_, i) => `${who}-${i}`)).sort()
        expect(names).toEqual(expected)
      })
    ))
})

describe("WorkspaceConfigFile: ensureDirs", () => {
  it.scoped("creates every workspace directory, idempotently", () =>
    Effect.gen(function* () {
      const { paths, ws } = yield* workspace("dirs-create")
      yield* ws.ensureDirs
      yield* ws.ensureDirs
      for (const dir of [paths.configDir, paths.dataDir, paths.cacheDir, paths.locksDir, paths.txnDir, paths.archiveDir, paths.packetsDir, paths.bundlesDir]) {
        expect(fs.statSync(dir).isDirectory(), dir).toBe(true)
      }
    }))

  const insideBundle: ReadonlyArray<readonly ["data" | "cache", string]> = [
    ["data", "dataDir"],
    ["cache", "cacheDir"]
  ]

  for (const [label, key] of insideBundle) {
    it.scoped(`refuses a ${label} dir inside a filesystem bundle root, creating nothing there (R-WS-1)`, () =>
      Effect.gen(function* () {
        const root = yield* tempDir(`dirs-inside-${label}`)
        const bundleRoot = path.join(root, "kb")
        fs.mkdirSync(bundleRoot)
        const base = pathsUnder(root)
        const inside = path.join(bundleRoot, ".akm", label)
        const paths = workspacePaths({}, root, path.join, {
          configDir: base.configDir,
          dataDir: key === "dataDir" ? inside : base.dataDir,
          cacheDir: key === "cacheDir" ? inside : base.cacheDir
        })
        fs.mkdirSync(paths.configDir, { recursive: true })
        // A relative bundle path resolves against the config dir.
        fs.writeFileSync(paths.configFile, "bundles:\n  kb: { source: { kind: filesystem, path: ../kb } }\n")
        const error = yield* Effect.flip(makeWorkspaceConfig(paths).ensureDirs)
        expect(error).toBeInstanceOf(WorkspaceUnavailable)
        expect(error).toMatchObject({ path: inside })
        expect((error as WorkspaceUnavailable).reason).toContain("kb")
        expect(fs.readdirSync(bundleRoot)).toEqual([])
      }))
  }

  it.scoped("a git bundle whose cache copy lives under $CACHE is not mistaken for a bundle root", () =>
    Effect.gen(function* () {
      const { paths, ws } = yield* workspace("dirs-git", "bundles:\n  team: { source: { kind: git, url: https://github.com/acme/kb.git } }\n")
      yield* ws.ensureDirs
      expect(fs.existsSync(paths.dataDir)).toBe(true)
    }))
})

const projectRoot = fileURLToPath(new URL("../..", import.meta.url))

/** Bundles a small program that adds `count` lock entries named `<who>-<i>`, one updateLock call each. */
const bundleLockWriter = (outfile: string) =>
  build({
    stdin: {
      contents: `
        import * as fs from "node:fs"
        import * as path from "node:path"
        import { Effect } from "effect"
        import { workspacePaths } from "./src/domain/Paths.ts"
        import { makeWorkspaceConfig } from "./src/layers/fs/WorkspaceConfigFile.ts"
        const [root, who, count] = process.argv.slice(2)
        const ws = makeWorkspaceConfig(workspacePaths({}, root, path.join, {
          configDir: path.join(root, "config"), dataDir: path.join(root, "data"), cacheDir: path.join(root, "cache")
        }))
        const entry = { source: { kind: "filesystem", locator: root }, revision: null, root, adapter: { id: "okf", version: "1" },
          installedAt: "2025-01-01T00:00:00.000Z", updatedAt: "2025-01-01T00:00:00.000Z" }
        // Start line: every process is loaded before any of them writes, so their updates overlap.
        process.stdout.write("ready\\n")
        while (!fs.existsSync(path.join(root, "go"))) await new Promise((resolve) => setTimeout(resolve, 2))
        for (let i = 0; i < Number(count); i++) {
          await Effect.runPromise(ws.updateLock((lock) => ({ ...lock, bundles: { ...lock.bundles, [who + "-" + i]: entry } })))
        }
      `,
      resolveDir: projectRoot,
      loader: "ts",
      sourcefile: "update-lock.ts"
    },
    outfile,
    bundle: true,
    format: "esm",
    platform: "node",
    target: "node20",
    // Bundled CommonJS dependencies (yaml) call require(), which an ES module lacks.
    banner: { js: 'import { createRequire } from "node:module"; const require = createRequire(import.meta.url);' },
    logLevel: "warning"
  })

/** Runs one process per argument list; once all are loaded, creates `<root>/go` to start them at once. Resolves to their exit codes. */
const runTogether = (script: string, root: string, argLists: ReadonlyArray<ReadonlyArray<string>>) => {
  let ready = 0
  return Promise.all(
    argLists.map((args) => {
      const child = spawn(process.execPath, [script, root, ...args], { stdio: ["ignore", "pipe", "inherit"] })
      child.stdout.once("data", () => {
        if (++ready === argLists.length) fs.writeFileSync(path.join(root, "go"), "")
      })
      return new Promise<number | null>((resolve) => child.once("exit", resolve))
    })
  )
}
