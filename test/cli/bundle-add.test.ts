import { existsSync, readFileSync, realpathSync, symlinkSync } from "node:fs"
import { join } from "node:path"
import { parse as parseYaml } from "yaml"
import { afterAll, describe, expect, it } from "vitest"
import { makeWorkspace, type Workspace } from "../support/cli.js"

// akm bundle add end to end: local folders recorded in config.yaml and akm.lock (issue 2 item 7, spec 02 §1).

const readConfig = (w: Workspace) => parseYaml(readFileSync(join(w.configDir, "config.yaml"), "utf8")) as {
  defaultBundle?: string
  bundles: Record<string, { source: { kind: string; path?: string }; adapter?: string; writable?: boolean }>
}
const readLock = (w: Workspace) => JSON.parse(readFileSync(join(w.dataDir, "akm.lock"), "utf8")) as {
  bundles: Record<string, { root: string; revision: string | null; adapter: { id: string; version: string }; installedAt: string; updatedAt: string; source: { kind: string; locator: string } }>
}
const iso = /^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d(\.\d+)?Z$/

describe("akm bundle add <folder>", () => {
  const workspace = makeWorkspace()
  afterAll(workspace.cleanup)
  const notes = workspace.folder("notes", { "guide.md": "# Guide\n", "deep/topic.md": "# Topic\n" })
  const files = workspace.folder("files", { "data.csv": "a,b\n", "script.sh": "echo\n" })
  const spare = workspace.folder("spare", { "never-added.md": "# Spare\n" })

  it("a folder with markdown: adapter okf, writable, becomes the default; relative to the caller's cwd", async () => {
    const r = await workspace.run(["bundle", "add", "./notes"], { cwd: workspace.root })
    expect(r.code, r.stderr).toBe(0)
    expect(r.json()).toMatchObject({
      schemaVersion: 1,
      name: "notes",
      source: { kind: "filesystem", path: notes },
      adapter: "okf",
      writable: true,
      root: realpathSync(notes),
      revision: null
    })

    const config = readConfig(workspace)
    expect(config.defaultBundle).toBe("notes")
    expect(config.bundles.notes).toMatchObject({ source: { kind: "filesystem", path: notes }, adapter: "okf" })

    const locked = readLock(workspace).bundles.notes!
    expect(locked.root).toBe(realpathSync(notes))
    expect(locked.adapter).toEqual({ id: "okf", version: expect.any(String) })
    expect(locked.installedAt).toMatch(iso)
    expect(locked.revision).toBeNull()
  })

  it("a folder without markdown: adapter generic-files; the default stays", async () => {
    const r = await workspace.run(["bundle", "add", files])
    expect(r.code, r.stderr).toBe(0)
    expect(r.json()).toMatchObject({ name: "files", adapter: "generic-files" })
    expect(readConfig(workspace).defaultBundle).toBe("notes")
    expect(readLock(workspace).bundles.files!.adapter.id).toBe("generic-files")
  })

  it("an explicit --adapter wins over detection (R-WS-7)", async () => {
    const native = workspace.folder("native-kb", { "page.md": "# Page\n" })
    const r = await workspace.run(["bundle", "add", native, "--name", "native", "--adapter", "akm"])
    expect(r.code, r.stderr).toBe(0)
    expect(r.json()).toMatchObject({ name: "native", adapter: "akm" })
    expect(readConfig(workspace).bundles.native!.adapter).toBe("akm")
    expect(readLock(workspace).bundles.native!.adapter.id).toBe("akm")
  })

  it("the lock records the real path of a folder reached through a symlink", async () => {
    const target = workspace.folder("real-kb", { "page.md": "# Page\n" })
    const link = join(workspace.root, "kb-link")
    symlinkSync(target, link)
    const r = await workspace.run(["bundle", "add", link, "--name", "linked"])
    expect(r.code, r.stderr).toBe(0)
    expect(readConfig(workspace).bundles.linked!.source.path).toBe(link)
    expect(readLock(workspace).bundles.linked!.root).toBe(realpathSync(target))
  })

  it("bundle list --format json: every bundle in the shape of spec 02 §1, and the default", async () => {
    const r = await workspace.run(["bundle", "list", "--format", "json"])
    expect(r.code).toBe(0)
    const list = r.json()
    expect(list.schemaVersion).toBe(1)
    expect(list.defaultBundle).toBe("notes")
    expect(list.bundles.map((b: { name: string }) => b.name)).toEqual(["notes", "files", "native", "linked"])
    for (const bundle of list.bundles) {
      expect(bundle).toMatchObject({
        source: { kind: "filesystem" },
        adapter: expect.any(String),
        writable: true,
        root: expect.any(String),
        revision: null,
        installedAt: expect.stringMatching(iso),
        updatedAt: expect.stringMatching(iso),
        items: expect.any(Number),
        diagnostics: { error: expect.any(Number), warning: expect.any(Number), info: expect.any(Number) }
      })
    }
  })

  it("bundle show <name>: the same object", async () => {
    const r = await workspace.run(["bundle", "show", "notes"])
    expect(r.code).toBe(0)
    const shown = r.json()
    expect(Object.keys(shown)).toEqual(expect.arrayContaining(["schemaVersion", "name", "source", "adapter", "writable", "root", "revision", "installedAt", "updatedAt", "items", "diagnostics"]))
    expect(shown).toMatchObject({
      schemaVersion: 1,
      name: "notes",
      source: { kind: "filesystem", path: notes },
      adapter: "okf",
      writable: true,
      root: realpathSync(notes),
      revision: null,
      installedAt: readLock(workspace).bundles.notes!.installedAt,
      // The findings of the index run that `bundle add` made (okf notes without a description warn).
      diagnostics: { error: 0, warning: expect.any(Number), info: expect.any(Number) }
    })
  })

  it("bundle show of an unknown name: exit 1, not_found naming the bundles there are", async () => {
    const r = await workspace.run(["bundle", "show", "nope"])
    expect(r.code).toBe(1)
    expect(r.stdout).toBe("")
    expect(r.error().error).toMatchObject({ code: "not_found", hint: expect.stringContaining("notes") })
  })

  describe("refusals leave config.yaml and akm.lock as they were", () => {
    const refusals = [
      { label: "an invalid --name", args: [spare, "--name", "bad.name"], exit: 2, code: "usage", hint: "" },
      { label: "a name that is taken", args: [workspace.folder("elsewhere/notes", { "x.md": "# X\n" })], exit: 1, code: "conflict", hint: "--name" },
      { label: "a folder that already is a bundle", args: [notes, "--name", "again"], exit: 1, code: "conflict", hint: "akm bundle remove notes" },
      { label: "--writable with --read-only", args: [spare, "--writable", "--read-only"], exit: 2, code: "usage", hint: "" },
      { label: "a folder that does not exist", args: [join(workspace.root, "missing")], exit: 1, code: "materialize_failed", hint: "" },
      { label: "an item ref", args: ["notes//x"], exit: 2, code: "usage", hint: "akm show" },
      { label: "an ssh git URL", args: ["git@github.com:a/b.git"], exit: 2, code: "usage", hint: "https" },
      { label: "a writable npm source (R-WS-6)", args: ["npm:x", "--writable"], exit: 2, code: "usage", hint: "" },
      { label: "an unknown adapter", args: [spare, "--adapter", "nope"], exit: 2, code: "usage", hint: "okf" }
    ]

    it.each(refusals)("$label: exit $exit, $code", async ({ args, exit, code, hint }) => {
      const before = { config: readFileSync(join(workspace.configDir, "config.yaml"), "utf8"), lock: readFileSync(join(workspace.dataDir, "akm.lock"), "utf8") }
      const r = await workspace.run(["bundle", "add", ...args])
      expect(r.code, r.stderr).toBe(exit)
      expect(r.stdout).toBe("")
      const { error } = r.error()
      expect(error.code).toBe(code)
      expect(error.message).not.toBe("")
      expect(error.hint).toContain(hint)
      expect(readFileSync(join(workspace.configDir, "config.yaml"), "utf8")).toBe(before.config)
      expect(readFileSync(join(workspace.dataDir, "akm.lock"), "utf8")).toBe(before.lock)
    })
  })
})

describe("a workspace directory inside the bundle being added (R-WS-1)", () => {
  const workspace = makeWorkspace()
  afterAll(workspace.cleanup)

  it.each(["AKM_DATA_DIR", "AKM_CACHE_DIR"])("%s inside it: refused with exit 78, workspace_unavailable, nothing created or recorded", async (variable) => {
    const kb = workspace.folder(`kb-${variable}`, { "a.md": "# A\n" })
    const inside = join(kb, ".akm")
    const r = await workspace.run(["bundle", "add", kb], { env: { [variable]: inside } })
    expect(r.code, r.stderr).toBe(78)
    expect(r.stdout).toBe("")
    const { error } = r.error()
    expect(error.code).toBe("workspace_unavailable")
    expect(error.message).toContain(inside)
    expect(existsSync(inside)).toBe(false)
    expect(existsSync(join(workspace.configDir, "config.yaml"))).toBe(false)
  })
})

describe("akm bundle add: an unsure detection says so (issue 15 item 9)", () => {
  const workspace = makeWorkspace()
  afterAll(workspace.cleanup)
  const skill = (name: string) => `---\nname: ${name}\ndescription: Handle ${name} files. Use when a ${name} file must be changed.\n---\n# ${name}\n`
  workspace.folder("kb", { "s1/pdf/SKILL.md": skill("pdf"), "s1/csv/SKILL.md": skill("csv"), "s2/docx/SKILL.md": skill("docx") })
  workspace.folder("wiki", { "index.md": "# Wiki\n", "guide.md": "---\ntype: guide\n---\n# Guide\n" })

  it("skills one level deeper than Agent Skills expects: the guess is named and the nested folders suggested", async () => {
    const r = await workspace.run(["bundle", "add", "kb", "--format", "text"])
    expect(r.code, r.stderr).toBe(0)
    expect(r.stdout).toMatch(/^adapter +okf$/m)
    expect(r.stderr).toBe(
      "note: adapter okf is a guess: skills sit one level deeper than Agent Skills expects (s1/<skill>/SKILL.md)\n" +
        "hint: akm bundle add kb/s1 --adapter agent-skills\n" +
        "      akm bundle add kb/s2 --adapter agent-skills\n"
    )
    const json = await workspace.run(["bundle", "add", "kb/s1", "--name", "probe", "--format", "json"])
    expect(json.json().detection).toBeUndefined()
    expect(json.json().adapter).toBe("agent-skills")
    // The suggestion works as printed.
    const nested = await workspace.run(["bundle", "add", "kb/s2", "--adapter", "agent-skills", "--format", "json"])
    expect(nested.json()).toMatchObject({ adapter: "agent-skills", items: 1, diagnostics: { error: 0, warning: 0 } })
  })

  it("json carries the doubt as `detection`; -q keeps stderr quiet; a plain wiki is not in doubt", async () => {
    const other = makeWorkspace()
    try {
      other.folder("kb", { "s1/pdf/SKILL.md": skill("pdf") })
      const r = await other.run(["bundle", "add", "kb", "--format", "json", "-q"])
      expect(r.stderr).toBe("")
      expect(r.json().detection).toEqual({ unsure: true, reason: expect.stringContaining("one level deeper"), suggestions: ["akm bundle add kb/s1 --adapter agent-skills"] })
    } finally {
      other.cleanup()
    }
    const wiki = await workspace.run(["bundle", "add", "wiki", "--format", "json"])
    expect(wiki.json().detection).toBeUndefined()
    expect(wiki.stderr).toBe("")
  })
})
