import Database from "better-sqlite3"
import { execFileSync } from "node:child_process"
import { chmodSync, existsSync, mkdirSync, readdirSync, readFileSync, renameSync, writeFileSync } from "node:fs"
import { join } from "node:path"
import { parse as parseYaml } from "yaml"
import { afterAll, beforeAll, describe, expect, it } from "vitest"
import { makeWorkspace, type Workspace } from "../support/cli.js"

// akm bundle update / rename / remove end to end with folder bundles (spec 02 §1, R-BUN-1..3, R-REF-6, R-RT-1).

const readConfig = (w: Workspace) => parseYaml(readFileSync(join(w.configDir, "config.yaml"), "utf8")) as {
  defaultBundle?: string
  bundles: Record<string, { refresh?: string }>
}
const lockPath = (w: Workspace) => join(w.dataDir, "akm.lock")
const readLock = (w: Workspace) =>
  JSON.parse(readFileSync(lockPath(w), "utf8")) as { bundles: Record<string, { root: string; updatedAt: string; stale?: { since: string; reason: string } }> }
const refsOf = (result: { hits: Array<{ ref: string }> }) => result.hits.map((h) => h.ref)

describe("akm bundle update", () => {
  const workspace = makeWorkspace()
  afterAll(workspace.cleanup)
  const notes = workspace.folder("notes", { "alpha.md": "# Alpha\n\nAll about alpacas.\n" })
  const other = workspace.folder("other", { "beta.md": "# Beta\n\nAll about bees.\n" })

  beforeAll(async () => {
    expect((await workspace.run(["bundle", "add", notes, "--refresh", "1h"])).code).toBe(0)
    expect((await workspace.run(["bundle", "add", other])).code).toBe(0)
  })

  it("--refresh is recorded in config.yaml and shown", async () => {
    expect(readConfig(workspace).bundles.notes?.refresh).toBe("1h")
    const show = (await workspace.run(["bundle", "show", "notes"])).json()
    expect(show).toMatchObject({ name: "notes", refresh: "1h" })
    const bad = await workspace.run(["bundle", "add", workspace.folder("x", { "x.md": "# X\n" }), "--refresh", "soon"])
    expect(bad.code).toBe(2)
    expect(bad.error().error.message).toContain("--refresh")
  })

  it("no name and no flag is a usage error (exit 2); an unknown name exit 1", async () => {
    const none = await workspace.run(["bundle", "update"])
    expect(none.code).toBe(2)
    expect(none.stdout).toBe("")
    expect(none.error().error).toMatchObject({ code: "usage", hint: expect.stringContaining("--all") })
    const ghost = await workspace.run(["bundle", "update", "ghost"])
    expect(ghost.code).toBe(1)
    expect(ghost.error().error.code).toBe("not_found")
  })

  it("a folder is reindexed: unchanged is up to date, an edit is picked up", async () => {
    const same = await workspace.run(["bundle", "update", "notes"])
    expect(same.code, same.stderr).toBe(0)
    expect(same.json()).toEqual({ schemaVersion: 1, updated: [], upToDate: [{ name: "notes", revision: null }], failed: [], notDue: [], ok: true })

    writeFileSync(join(notes, "gamma.md"), "# Gamma\n\nAll about gnus.\n")
    const edited = await workspace.run(["bundle", "update", "notes", "--format", "text"])
    expect(edited.code, edited.stderr).toBe(0)
    expect(edited.stdout).toMatch(/✓ notes\s+reindexed\s+2 items/)
    expect(edited.stdout).toContain("1 updated, 0 up to date, 0 failed")
    expect(refsOf((await workspace.run(["search", "gnus"])).json())).toEqual(["notes//gamma"])
  })

  it("--due: only bundles with an elapsed refresh interval", async () => {
    const early = await workspace.run(["bundle", "update", "--due"])
    expect(early.code, early.stderr).toBe(0)
    expect(early.json()).toMatchObject({ updated: [], upToDate: [], failed: [], notDue: [{ name: "notes", dueAt: expect.any(String) }] })

    // Pretend the last update was two hours ago.
    const lock = readLock(workspace)
    lock.bundles.notes!.updatedAt = new Date(Date.now() - 2 * 3_600_000).toISOString()
    writeFileSync(lockPath(workspace), JSON.stringify(lock, null, 2))
    const due = await workspace.run(["bundle", "update", "--due"])
    expect(due.code, due.stderr).toBe(0)
    expect(due.json()).toMatchObject({ upToDate: [{ name: "notes" }], notDue: [] })
    expect(Date.parse(readLock(workspace).bundles.notes!.updatedAt)).toBeGreaterThan(Date.now() - 60_000)
  })

  it("R-BUN-2: --all with a vanished folder reports it (exit 1, result on stdout), keeps its rows searchable and marks it stale", async () => {
    const moved = `${other}-moved`
    renameSync(other, moved)
    try {
      const r = await workspace.run(["bundle", "update", "--all"])
      expect(r.code).toBe(1)
      const result = r.json()
      expect(result).toMatchObject({ schemaVersion: 1, ok: false, upToDate: [{ name: "notes" }], failed: [{ name: "other", reason: "the folder does not exist" }] })
      expect(r.stderr).toContain("other: the folder does not exist")

      const locked = readLock(workspace).bundles.other!
      expect(locked.stale).toMatchObject({ reason: "the folder does not exist" })
      expect((await workspace.run(["bundle", "show", "other"])).json()).toMatchObject({ stale: { reason: "the folder does not exist" } })
      const list = await workspace.run(["bundle", "list", "--format", "text"])
      expect(list.stdout).toMatch(/other .*\(stale\)/)

      const searched = (await workspace.run(["search", "bees"])).json()
      expect(refsOf(searched)).toEqual(["other//beta"])
      expect(searched.stale).toEqual(["other"])

      const text = await workspace.run(["bundle", "update", "other", "--format", "text"])
      expect(text.code).toBe(1)
      expect(text.stdout).toMatch(/✗ other\s+the folder does not exist/)
    } finally {
      renameSync(moved, other)
    }
    const healed = await workspace.run(["bundle", "update", "other"])
    expect(healed.code, healed.stderr).toBe(0)
    expect(readLock(workspace).bundles.other!.stale).toBeUndefined()
    expect((await workspace.run(["bundle", "show", "other"])).json().stale).toBeUndefined()
  })
})

describe("akm bundle rename", () => {
  const workspace = makeWorkspace()
  afterAll(workspace.cleanup)
  const notes = workspace.folder("notes", { "guide.md": "# Guide\n\nDeploy on Tuesdays only.\n" })

  it("R-REF-6: search, show and feedback work by the new ref; the old name is gone", async () => {
    expect((await workspace.run(["bundle", "add", notes])).code).toBe(0)
    expect((await workspace.run(["feedback", "notes//guide", "--positive"])).code).toBe(0)

    const r = await workspace.run(["bundle", "rename", "notes", "kb"])
    expect(r.code, r.stderr).toBe(0)
    expect(r.json()).toEqual({ schemaVersion: 1, from: "notes", to: "kb", root: notes, defaultBundle: "kb" })
    expect(readConfig(workspace)).toMatchObject({ defaultBundle: "kb" })
    expect(Object.keys(readConfig(workspace).bundles)).toEqual(["kb"])
    expect(Object.keys(readLock(workspace).bundles)).toEqual(["kb"])

    expect(refsOf((await workspace.run(["search", "Tuesdays"])).json())).toEqual(["kb//guide"])
    expect((await workspace.run(["show", "kb//guide"])).code).toBe(0)
    expect((await workspace.run(["show", "notes//guide"])).code).toBe(1)
    expect((await workspace.run(["feedback", "kb//guide", "--positive"])).code).toBe(0)
    const db = new Database(join(workspace.dataDir, "state.db"), { readonly: true })
    try {
      expect(db.prepare("SELECT ref FROM feedback ORDER BY id").all()).toEqual([{ ref: "kb//guide" }, { ref: "kb//guide" }])
    } finally {
      db.close()
    }
    expect((await workspace.run(["bundle", "show", "notes"])).code).toBe(1)
    const text = await workspace.run(["bundle", "rename", "kb", "team", "--format", "text"])
    expect(text.stdout).toContain("renamed bundle kb → team")
  })

  it("a taken name is a conflict (exit 1); an invalid one a usage error (exit 2)", async () => {
    expect((await workspace.run(["bundle", "add", workspace.folder("other", { "o.md": "# O\n" })])).code).toBe(0)
    const taken = await workspace.run(["bundle", "rename", "team", "other"])
    expect(taken.code).toBe(1)
    expect(taken.error().error.code).toBe("conflict")
    expect((await workspace.run(["bundle", "rename", "team", "a/b"])).code).toBe(2)
  })
})

describe("akm bundle remove and add again", () => {
  const workspace = makeWorkspace()
  afterAll(workspace.cleanup)
  const notes = workspace.folder("notes", { "guide.md": "# Guide\n\nRotate the keys monthly.\n" })

  it("R-BUN-3: the folder stays and feedback on its refs survives remove + re-add", async () => {
    expect((await workspace.run(["bundle", "add", notes])).code).toBe(0)
    expect((await workspace.run(["feedback", "notes//guide", "--negative", "--reason", "it is weekly now"])).code).toBe(0)
    expect((await workspace.run(["bundle", "remove", "notes"])).code).toBe(0)
    expect(readFileSync(join(notes, "guide.md"), "utf8")).toContain("Rotate")
    expect(refsOf((await workspace.run(["search", "Rotate"])).json())).toEqual([])
    expect((await workspace.run(["bundle", "add", notes])).code).toBe(0)
    const db = new Database(join(workspace.dataDir, "state.db"), { readonly: true })
    try {
      expect(db.prepare("SELECT ref, reason FROM feedback").all()).toEqual([{ ref: "notes//guide", reason: "it is weekly now" }])
    } finally {
      db.close()
    }
  })
})

describe("a pinned copy of a local git checkout (--git)", () => {
  const workspace = makeWorkspace()
  afterAll(workspace.cleanup)
  const repo = workspace.folder("repo", { "guide.md": "# Guide\n\nFirst edition.\n" })
  const git = (...args: ReadonlyArray<string>) =>
    execFileSync("git", ["-c", "user.name=akm test", "-c", "user.email=test@example.com", "-c", "commit.gpgsign=false", ...args], {
      cwd: repo,
      env: { ...workspace.env, GIT_CONFIG_GLOBAL: "/dev/null", GIT_CONFIG_NOSYSTEM: "1" },
      encoding: "utf8"
    }).trim()

  it("add pins a commit, update moves to the next one and prunes the old copy, rename moves the cache, remove deletes it", async () => {
    git("init", "-q")
    git("add", ".")
    git("commit", "-qm", "first")
    const first = git("rev-parse", "HEAD")
    const added = await workspace.run(["bundle", "add", "--git", "./repo", "--name", "kb"])
    expect(added.code, added.stderr).toBe(0)
    expect(added.json()).toMatchObject({ name: "kb", source: { kind: "git", url: repo }, revision: first, writable: false, root: join(workspace.cacheDir, "sources", "kb", first) })

    writeFileSync(join(repo, "guide.md"), "# Guide\n\nSecond edition with zebras.\n")
    git("commit", "-qam", "second")
    const second = git("rev-parse", "HEAD")
    const updated = await workspace.run(["bundle", "update", "kb"])
    expect(updated.code, updated.stderr).toBe(0)
    expect(updated.json().updated).toMatchObject([{ name: "kb", from: first, to: second }])
    expect(readdirSync(join(workspace.cacheDir, "sources", "kb")).filter((e) => !e.startsWith("."))).toEqual([second])
    expect(refsOf((await workspace.run(["search", "zebras"])).json())).toEqual(["kb//guide"])
    expect((await workspace.run(["bundle", "update", "kb"])).json().upToDate).toEqual([{ name: "kb", revision: second }])

    const renamed = await workspace.run(["bundle", "rename", "kb", "team"])
    expect(renamed.code, renamed.stderr).toBe(0)
    expect(renamed.json().root).toBe(join(workspace.cacheDir, "sources", "team", second))
    expect(existsSync(join(workspace.cacheDir, "sources", "kb"))).toBe(false)
    expect(refsOf((await workspace.run(["search", "zebras"])).json())).toEqual(["team//guide"])

    expect((await workspace.run(["bundle", "remove", "team"])).code).toBe(0)
    expect(existsSync(join(workspace.cacheDir, "sources", "team"))).toBe(false)
    expect(readFileSync(join(repo, "guide.md"), "utf8")).toContain("zebras")
  })
})

describe("install ≠ activation (R-BUN-1, R-RT-1)", () => {
  const workspace = makeWorkspace()
  afterAll(workspace.cleanup)
  const markers = join(workspace.root, "markers")
  const canary = "canary-7f3a9e-do-not-store"
  const touch = (what: string) => `node -e "require('fs').writeFileSync('${join(markers, what)}', process.env.AKM_CANARY || 'ran')"`
  const bundle = workspace.folder("hostile", {
    "package.json": JSON.stringify({
      name: "hostile",
      version: "1.0.0",
      scripts: { preinstall: touch("preinstall"), install: touch("install"), postinstall: touch("postinstall"), prepare: touch("prepare") }
    }),
    "scripts/setup.sh": `#!/bin/sh\n${touch("script")}\n`,
    "nightly.yml": `name: Nightly\ndescription: Runs every minute if anyone lets it\nschedule: "* * * * *"\nenabled: true\nenv: [AKM_CANARY]\nrun: ${touch("task")}\n`,
    "deploy.md": `---\ntype: workflow\ndescription: Deploy everything\nsteps:\n  - id: go\n    title: Go\n---\n# Deploy\n\n## go\n\n\`\`\`sh\n${touch("workflow")}\n\`\`\`\n`,
    ".env": `AKM_CANARY=${canary}\n`,
    ".envrc": `${touch("envrc")}\nexport AKM_CANARY=${canary}\n`,
    ".husky/pre-commit": `#!/bin/sh\n${touch("hook")}\n`
  })

  it("add, update, update --force, index --full and search run nothing, schedule nothing and store no env value", async () => {
    mkdirSync(markers, { recursive: true })
    chmodSync(join(bundle, "scripts/setup.sh"), 0o755)
    chmodSync(join(bundle, ".husky/pre-commit"), 0o755)
    for (const args of [["bundle", "add", bundle], ["bundle", "update", "hostile"], ["bundle", "update", "--all", "--force"], ["index", "--full"], ["search", "deploy"], ["search", "nightly"]]) {
      const r = await workspace.run(args)
      expect(r.code, `${args.join(" ")}: ${r.stderr}`).toBe(0)
      expect(r.stdout + r.stderr).not.toContain(canary)
    }
    expect(readdirSync(markers)).toEqual([])
    for (const file of ["config/config.yaml", "data/akm.lock", "data/state.db", "cache/index.db", "data/logs.db"]) {
      const path = join(workspace.root, file)
      if (existsSync(path)) expect(readFileSync(path).includes(canary), `${file} holds the env value`).toBe(false)
    }
    // Nothing was written into the bundle either.
    expect(readdirSync(bundle).sort()).toEqual([".env", ".envrc", ".husky", "deploy.md", "nightly.yml", "package.json", "scripts"])
  })
})

describe("akm bundle add flags", () => {
  const workspace = makeWorkspace()
  afterAll(workspace.cleanup)

  it("a flag that does not fit the source is a usage error (exit 2) naming the fix", async () => {
    const cases: ReadonlyArray<readonly [ReadonlyArray<string>, string]> = [
      [["--website", "http://docs.example.com/"], "--allow-insecure"],
      [["--website", "https://ada:pw@docs.example.com/"], "user:password"],
      [["./kb", "--ref", "main"], "--git"],
      [["npm:left-pad", "--allow-insecure"], "--website"],
      [["./kb", "--website"], "https://"]
    ]
    const runs = await Promise.all(cases.map(([args]) => workspace.run(["bundle", "add", ...args])))
    runs.forEach((r, i) => {
      expect(r.code, cases[i]![0].join(" ")).toBe(2)
      expect(r.stdout).toBe("")
      expect(r.error().error.hint).toContain(cases[i]![1])
    })
  })

  it("update and rename appear in the help, and add's new flags", async () => {
    const help = await workspace.run(["bundle", "--help"])
    expect(help.stdout).toMatch(/update/)
    expect(help.stdout).toMatch(/rename/)
    const add = await workspace.run(["bundle", "add", "--help"])
    for (const flag of ["--git", "--ref", "--website", "--allow-insecure", "--refresh"]) expect(add.stdout).toContain(flag)
  })
})
