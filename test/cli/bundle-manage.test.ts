import { existsSync, readFileSync, realpathSync, statSync } from "node:fs"
import { join } from "node:path"
import { parse as parseYaml } from "yaml"
import { afterAll, beforeAll, describe, expect, it } from "vitest"
import { makeWorkspace, type Workspace } from "../support/cli.js"

// akm bundle create / remove / list formats end to end (issue 2 item 7, spec 02 §1, R-BUN-3).

const readConfig = (w: Workspace) => parseYaml(readFileSync(join(w.configDir, "config.yaml"), "utf8")) as {
  defaultBundle?: string
  bundles?: Record<string, { source: { kind: string; path?: string }; adapter?: string; writable?: boolean }>
}
const lockedNames = (w: Workspace) => Object.keys((JSON.parse(readFileSync(join(w.dataDir, "akm.lock"), "utf8")) as { bundles: object }).bundles)

describe("akm bundle create", () => {
  const workspace = makeWorkspace()
  afterAll(workspace.cleanup)

  it("makes a writable akm bundle under $AKM_DATA_DIR/bundles/<name>", async () => {
    const r = await workspace.run(["bundle", "create", "mine"])
    expect(r.code, r.stderr).toBe(0)
    const folder = join(workspace.dataDir, "bundles", "mine")
    expect(statSync(folder).isDirectory()).toBe(true)
    expect(r.json()).toMatchObject({ schemaVersion: 1, name: "mine", adapter: "akm", writable: true, root: realpathSync(folder), source: { kind: "filesystem" } })
    expect(readConfig(workspace).bundles?.mine).toMatchObject({ adapter: "akm", writable: true })
    expect(lockedNames(workspace)).toEqual(["mine"])
  })

  it("--dir in a folder that is not empty: exit 1, conflict", async () => {
    const full = workspace.folder("full", { "keep.txt": "mine\n" })
    const r = await workspace.run(["bundle", "create", "other", "--dir", full])
    expect(r.code).toBe(1)
    expect(r.stdout).toBe("")
    expect(r.error().error.code).toBe("conflict")
    expect(readConfig(workspace).bundles).not.toHaveProperty("other")
    expect(readFileSync(join(full, "keep.txt"), "utf8")).toBe("mine\n")
  })

  it("--dir to a new folder (relative to the caller) with --set-default", async () => {
    const r = await workspace.run(["bundle", "create", "team", "--dir", "./team-kb", "--set-default"], { cwd: workspace.root })
    expect(r.code, r.stderr).toBe(0)
    const folder = join(workspace.root, "team-kb")
    expect(statSync(folder).isDirectory()).toBe(true)
    expect(r.json()).toMatchObject({ name: "team", root: folder, default: true })
    expect(readConfig(workspace).defaultBundle).toBe("team")
    const list = (await workspace.run(["bundle", "list"])).json()
    expect(list.defaultBundle).toBe("team")
  })

  it("a name that is taken: exit 1, conflict", async () => {
    const r = await workspace.run(["bundle", "create", "mine"])
    expect(r.code).toBe(1)
    expect(r.error().error.code).toBe("conflict")
  })

  it("an invalid name: exit 2", async () => {
    const r = await workspace.run(["bundle", "create", "a/b"])
    expect(r.code).toBe(2)
    expect(r.error().error.code).toBe("usage")
  })
})

describe("akm bundle remove", () => {
  const workspace = makeWorkspace()
  afterAll(workspace.cleanup)
  const notes = workspace.folder("notes", { "guide.md": "# Guide\n" })

  it("removes the default bundle from config, lock and list, keeps the user's folder, clears the default", async () => {
    expect((await workspace.run(["bundle", "add", notes])).code).toBe(0)
    expect(readConfig(workspace).defaultBundle).toBe("notes")

    const r = await workspace.run(["bundle", "remove", "notes", "-y"])
    expect(r.code, r.stderr).toBe(0)
    expect(r.json()).toMatchObject({ schemaVersion: 1, name: "notes", removed: true, keptFolder: notes, defaultCleared: true })

    const config = readConfig(workspace)
    expect(config?.bundles?.notes).toBeUndefined() // an emptied `bundles:` may go altogether
    expect(config?.defaultBundle).toBeUndefined()
    expect(lockedNames(workspace)).toEqual([])
    const list = (await workspace.run(["bundle", "list"])).json()
    expect(list).toEqual({ schemaVersion: 1, bundles: [], defaultBundle: null })

    expect(readFileSync(join(notes, "guide.md"), "utf8")).toBe("# Guide\n")
  })

  it("removing a bundle that is not the default keeps the default", async () => {
    const other = workspace.folder("other", { "x.md": "# X\n" })
    expect((await workspace.run(["bundle", "add", notes])).code).toBe(0)
    expect((await workspace.run(["bundle", "add", other])).code).toBe(0)
    const r = await workspace.run(["bundle", "remove", "other"])
    expect(r.code, r.stderr).toBe(0)
    expect(r.json().defaultCleared).toBe(false)
    expect(readConfig(workspace).defaultBundle).toBe("notes")
    expect(existsSync(join(other, "x.md"))).toBe(true)
  })

  it("an unknown name: exit 1, not_found", async () => {
    const r = await workspace.run(["bundle", "remove", "ghost"])
    expect(r.code).toBe(1)
    expect(r.stdout).toBe("")
    expect(r.error().error.code).toBe("not_found")
  })
})

describe("a config.yaml written by hand, before akm init", () => {
  const workspace = makeWorkspace()
  afterAll(workspace.cleanup)
  const notes = workspace.folder("notes", { "guide.md": "# Guide\n" })
  workspace.folder("config", { "config.yaml": `# mine\nbundles:\n  notes: { source: { kind: filesystem, path: ${notes} } }\n` })

  it("bundle list and show read it; the bundle is reported as not installed yet", async () => {
    const list = await workspace.run(["bundle", "list"])
    expect(list.code, list.stderr).toBe(0)
    expect(list.json().bundles).toMatchObject([{ name: "notes", source: { kind: "filesystem", path: notes }, root: null, installedAt: null, stale: { reason: expect.any(String) } }])
    const show = await workspace.run(["bundle", "show", "notes"])
    expect(show.code, show.stderr).toBe(0)
    expect(show.json()).toMatchObject({ name: "notes", revision: null })
  })
})

describe.concurrent("every output format (spec 09 §1)", () => {
  const workspace = makeWorkspace()
  afterAll(workspace.cleanup)
  const notes = workspace.folder("notes", { "guide.md": "# Guide\n" })
  // Set up before the concurrent runs, so every one of them sees one bundle and one setting.
  beforeAll(async () => {
    expect((await workspace.run(["bundle", "add", notes])).code).toBe(0)
    expect((await workspace.run(["config", "set", "search.limit", "7"])).code).toBe(0)
  })

  const commands = [
    { command: "config list", check: (value: { config: { search: { limit: number } } }) => expect(value.config.search.limit).toBe(7) },
    { command: "bundle list", check: (value: { bundles: Array<{ name: string }> }) => expect(value.bundles[0]!.name).toBe("notes") }
  ] as const

  describe.each(commands)("$command", ({ command, check }) => {
    const run = (format: string) => workspace.run([...command.split(" "), "--format", format])

    it("json: one document with schemaVersion 1", async () => {
      const r = await run("json")
      expect(r.code, r.stderr).toBe(0)
      expect(r.json().schemaVersion).toBe(1)
      check(r.json())
    })

    it("yaml: the same document in YAML", async () => {
      const r = await run("yaml")
      expect(r.code, r.stderr).toBe(0)
      const value = parseYaml(r.stdout)
      expect(value.schemaVersion).toBe(1)
      check(value)
    })

    it("jsonl: one JSON value per line", async () => {
      const r = await run("jsonl")
      expect(r.code, r.stderr).toBe(0)
      const lines = r.stdout.trimEnd().split("\n")
      expect(lines.length).toBeGreaterThan(0)
      for (const line of lines) expect(() => JSON.parse(line)).not.toThrow()
    })

    it.each(["text", "md"])("%s: human output naming what is there", async (format) => {
      const r = await run(format)
      expect(r.code, r.stderr).toBe(0)
      expect(r.stdout).toContain(command === "bundle list" ? "notes" : "limit")
      expect(() => JSON.parse(r.stdout)).toThrow()
    })
  })
})
