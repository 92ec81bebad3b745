import { existsSync, readFileSync } from "node:fs"
import { join } from "node:path"
import { afterAll, beforeAll, describe, expect, it } from "vitest"
import { makeWorkspace, repoRoot } from "../support/cli.js"
import { notesFiles } from "../support/indexedWorkspace.js"

// akm evidence end to end (spec 06 §1): list/add/dismiss/collect/import, output formats, exit codes, and no secret in state.db.

const fixtures = join(repoRoot, "test/fixtures/transcripts")
const TOKEN = "ghp_A1b2C3d4E5f6G7h8I9j0K1l2M3n4O5p6Q7r8"

describe("akm evidence", () => {
  const workspace = makeWorkspace()
  afterAll(workspace.cleanup)
  const notes = workspace.folder("notes", notesFiles)

  beforeAll(async () => {
    expect((await workspace.run(["bundle", "add", notes, "--name", "notes"])).code).toBe(0)
    expect((await workspace.run(["index", "--quiet"])).code).toBe(0)
  })

  it("a negative feedback is listed as evidence in every output format", async () => {
    expect((await workspace.run(["feedback", "notes//guide", "--negative", "--reason", "step 3 uses the old flag"])).code).toBe(0)
    const json = await workspace.run(["evidence", "list", "--ref", "notes//guide", "--format", "json"])
    expect(json.code, json.stderr).toBe(0)
    expect(json.json()).toMatchObject({ rows: [{ kind: "negative-feedback", source: "feedback", ref: "notes//guide", note: "step 3 uses the old flag", status: "open" }], independent: 1 })
    const jsonl = await workspace.run(["evidence", "list", "--ref", "notes//guide", "--format", "jsonl"])
    expect(jsonl.stdout.trim().split("\n").map((line) => JSON.parse(line).kind)).toEqual(["negative-feedback"])
    const text = await workspace.run(["evidence", "list", "--ref", "notes//guide", "--format", "text"])
    expect(text.stdout).toMatch(/ID\s+KIND\s+STATUS\s+REF\s+NOTE/)
    expect(text.stdout).toContain("1 row, 1 independent")
    const md = await workspace.run(["evidence", "list", "--ref", "notes//guide", "--format", "md"])
    expect(md.stdout).toContain("| negative-feedback | open | notes//guide | step 3 uses the old flag |")
  })

  it("add records a row once; dismiss takes an id prefix; bad input exits 2, an unknown id 1", async () => {
    const add = ["evidence", "add", "--kind", "contradiction", "--ref", "runbook", "--note", "restart is systemctl, not service", "--format", "json"]
    const first = await workspace.run(add)
    expect(first.code, first.stderr).toBe(0)
    const row = first.json()
    expect(row).toMatchObject({ kind: "contradiction", ref: "notes//runbook", source: "manual" })
    expect((await workspace.run(add)).json().id).toBe(row.id)
    expect((await workspace.run(["evidence", "add", "--kind", "popularity", "--note", "x"])).code).toBe(2)
    expect((await workspace.run(["evidence", "add", "--kind", "question", "--note", " ", "--format", "json"])).code).toBe(2)
    const missing = await workspace.run(["evidence", "dismiss", "ffffffffff", "--format", "json"])
    expect(missing.code).toBe(1)
    expect(missing.error().error.code).toBe("not_found")
    const dismissed = await workspace.run(["evidence", "dismiss", row.id.slice(0, 8), "--format", "json"])
    expect(dismissed.code, dismissed.stderr).toBe(0)
    expect(dismissed.json()).toMatchObject({ id: row.id, status: "dismissed" })
    const open = await workspace.run(["evidence", "list", "--status", "open", "--kind", "contradiction", "--format", "json"])
    expect(open.json().rows).toEqual([])
  })

  it("import claude-code reads the fixtures, names the bad line, and the token never reaches state.db", async () => {
    const r = await workspace.run(["evidence", "import", "claude-code", "--dir", join(fixtures, "claude-code/projects"), "--format", "json"])
    expect(r.code, r.stderr).toBe(0)
    const result = r.json()
    expect(result).toMatchObject({ tool: "claude-code", files: 2, sessions: 2, found: 4, added: 4 })
    expect(result.problems).toEqual([{ file: expect.stringMatching(/000000000001\.jsonl$/), line: 8, message: expect.any(String) }])
    expect(r.stdout).not.toContain(TOKEN)
    const again = await workspace.run(["evidence", "import", "claude-code", "--dir", join(fixtures, "claude-code/projects"), "--format", "text"])
    expect(again.stdout).toContain("4 observations, 0 new")
    expect(again.stdout).toMatch(/000000000001\.jsonl:8: not valid JSON/)
    for (const file of ["state.db", "state.db-wal"].map((name) => join(workspace.dataDir, name)).filter(existsSync)) {
      expect(readFileSync(file).includes(TOKEN), file).toBe(false)
    }
  })

  it("import codex and opencode from --dir; a missing folder names itself and --dir; the default comes from HOME", async () => {
    expect((await workspace.run(["evidence", "import", "codex", "--dir", join(fixtures, "codex/sessions"), "--format", "json"])).json()).toMatchObject({ found: 3 })
    expect((await workspace.run(["evidence", "import", "opencode", "--dir", join(fixtures, "opencode/storage"), "--since", "2026-11-01", "--format", "json"])).json()).toMatchObject({ found: 3 })
    const missing = await workspace.run(["evidence", "import", "codex", "--dir", join(workspace.root, "nothing-here"), "--format", "json"])
    expect(missing.code).toBe(1)
    expect(missing.error().error.message).toContain(join(workspace.root, "nothing-here"))
    expect(missing.error().error.hint).toContain("--dir")
    // The workspace's HOME is a temp folder: the default is looked up there, never in the real home.
    const byDefault = await workspace.run(["evidence", "import", "claude-code", "--format", "json"], { env: { CLAUDE_CONFIG_DIR: "" } })
    expect(byDefault.code).toBe(1)
    expect(byDefault.error().error.message).toContain(join(workspace.home, ".claude", "projects"))
    expect((await workspace.run(["evidence", "import", "codex", "--dir", fixtures, "--since", "soon"])).code).toBe(2)
  })

  it("collect --dry-run reports and stores nothing; collect stores; a vanished item is flagged", async () => {
    const broken = workspace.folder("broken", { "index.md": "# B\n", "page.md": "---\ntype: guide\n---\n# Page\n\nSee [gone](gone.md).\n" })
    expect((await workspace.run(["bundle", "add", broken, "--name", "broken"])).code).toBe(0)
    const before = (await workspace.run(["evidence", "list", "--bundle", "broken", "--format", "json"])).json().rows
    expect(before).toEqual([])
    const dry = await workspace.run(["evidence", "collect", "--bundle", "broken", "--dry-run", "--format", "json"])
    expect(dry.code, dry.stderr).toBe(0)
    expect(dry.json().rows.map((r: { kind: string; ref: string }) => [r.kind, r.ref])).toEqual([["broken-link", "broken//page"]])
    expect((await workspace.run(["evidence", "list", "--bundle", "broken", "--format", "json"])).json().rows).toEqual([])
    expect((await workspace.run(["evidence", "collect", "--bundle", "broken", "--format", "json"])).json()).toMatchObject({ added: 1 })
    expect((await workspace.run(["bundle", "remove", "broken"])).code).toBe(0)
    const flagged = await workspace.run(["evidence", "list", "--kind", "broken-link", "--format", "text"])
    expect(flagged.code, flagged.stderr).toBe(0)
    expect(flagged.stdout).toContain("broken//page (missing: bundle 'broken' is no longer configured)")
  })
})
