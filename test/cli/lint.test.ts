import { readFileSync, rmSync } from "node:fs"
import { join } from "node:path"
import { afterAll, describe, expect, it } from "vitest"
import { makeWorkspace } from "../support/cli.js"

// akm lint end to end (issue 5 item 4, spec 03 §1, spec 09 §1–2): exit 1 with the result still on stdout.

const skills = {
  "pdf/SKILL.md": "---\nname: pdf-tools\ndescription: Fill PDF forms. Use when a user asks to fill a PDF form.\n---\n# PDF\n",
  "csv/SKILL.md": "---\nname: csv\ndescription: Clean CSV files. Use when a CSV needs cleaning.\n---\n# CSV\n"
}
const notes = {
  "index.md": "# Notes\n",
  "guide.md": "---\ntype: guide\ntitle: Guide\n---\n# Guide\n\nSee [missing](missing.md).\n"
}

describe("akm lint", () => {
  const workspace = makeWorkspace()
  afterAll(workspace.cleanup)
  const notesDir = workspace.folder("notes", notes)
  const skillsDir = workspace.folder("skills", skills)
  const frozenDir = workspace.folder("frozen", skills)

  it("with no bundles reports nothing to lint and exits 0", async () => {
    const r = await workspace.run(["lint", "--format", "json"])
    expect(r.code, r.stderr).toBe(0)
    expect(r.json()).toEqual({ schemaVersion: 1, bundles: [], counts: { error: 0, warning: 0, info: 0 }, ok: true })
  })

  it("prints the JSON result on stdout and exits 1 when an error remains", async () => {
    for (const [dir, name, extra] of [[notesDir, "notes", []], [skillsDir, "skills", []], [frozenDir, "frozen", ["--read-only"]]] as const) {
      const added = await workspace.run(["bundle", "add", dir, "--name", name, ...extra])
      expect(added.code, added.stderr).toBe(0)
    }
    const r = await workspace.run(["lint", "--format", "json"])
    expect(r.code).toBe(1)
    expect(r.stderr).toBe("")
    const result = r.json()
    expect(result.schemaVersion).toBe(1)
    expect(result.ok).toBe(false)
    expect(result.bundles.map((b: { bundle: string; adapter: string; items: number }) => [b.bundle, b.adapter, b.items])).toEqual([["notes", "okf", 1], ["skills", "agent-skills", 2], ["frozen", "agent-skills", 2]])
    expect(result.bundles[1]).toEqual({
      bundle: "skills",
      adapter: "agent-skills",
      root: skillsDir,
      items: 2,
      counts: { error: 1, warning: 0, info: 0 },
      files: [{
        path: "pdf/SKILL.md",
        diagnostics: [expect.objectContaining({ code: "name-directory-mismatch", severity: "error", line: 2, ref: "skills//pdf", fixable: true })]
      }]
    })
    expect(result.counts.error).toBe(2)
  })

  it("--bundle narrows to one bundle; --fail-on warning also fails on warnings", async () => {
    const notesOnly = await workspace.run(["lint", "--bundle", "notes", "--format", "json"])
    expect(notesOnly.code).toBe(0)
    expect(notesOnly.json().bundles[0].files[0]).toMatchObject({ path: "guide.md", diagnostics: [{ code: "dangling-link", severity: "warning", line: 7 }] })
    const strict = await workspace.run(["lint", "--bundle", "notes", "--fail-on", "warning", "--format", "json"])
    expect(strict.code).toBe(1)
    expect(strict.json().ok).toBe(false)
  })

  it("shows text grouped by file with aligned line, severity, code and message", async () => {
    const r = await workspace.run(["lint", "--bundle", "skills", "--format", "text"])
    expect(r.code).toBe(1)
    const lines = r.stdout.split("\n")
    expect(lines[0]).toBe("skills  agent-skills, 2 items")
    expect(lines[1]).toBe("  pdf/SKILL.md")
    expect(lines[2]).toMatch(/^ {4}2 {2}error {2}name-directory-mismatch {2}.+ \(fixable\)$/)
    expect(r.stdout).toContain("✗ 1 error, 0 warnings, 0 info in 1 bundle")
  })

  it("jsonl writes one diagnostic per line", async () => {
    const r = await workspace.run(["lint", "--bundle", "skills", "--format", "jsonl"])
    const rows = r.stdout.trim().split("\n").map((line) => JSON.parse(line))
    expect(rows).toEqual([expect.objectContaining({ bundle: "skills", path: "pdf/SKILL.md", code: "name-directory-mismatch" })])
  })

  it("--fix on a read-only bundle reports that fixes cannot be applied", async () => {
    const r = await workspace.run(["lint", "--bundle", "frozen", "--fix", "--format", "json"])
    expect(r.code).toBe(1)
    expect(r.json().bundles[0].fix).toEqual({ available: 1, applied: 0, note: "bundle 'frozen' is read-only; fixes cannot be applied" })
    expect(readFileSync(join(frozenDir, "pdf/SKILL.md"), "utf8")).toBe(skills["pdf/SKILL.md"])
  })

  it("--fix proposes the skill folder rename for review and keeps the skill's name (issue 15 item 8)", async () => {
    const r = await workspace.run(["lint", "--bundle", "skills", "--fix", "--format", "text"])
    expect(r.code, r.stdout).toBe(1)
    expect(r.stdout).toMatch(/fixes: 0 of 1 applied — 1 folder rename awaits review: `akm proposal show [0-9a-f]{8}`/)
    expect(readFileSync(join(skillsDir, "pdf/SKILL.md"), "utf8")).toBe(skills["pdf/SKILL.md"])
    const pending = (await workspace.run(["proposal", "list", "--format", "json"])).json()
    expect(pending.proposals).toEqual([expect.objectContaining({ status: "pending", changeClass: "semantic", recipe: "lint-fix" })])
    const accepted = await workspace.run(["proposal", "accept", pending.proposals[0].id, "--format", "json"])
    expect(accepted.code, accepted.stderr).toBe(0)
    expect(readFileSync(join(skillsDir, "pdf-tools/SKILL.md"), "utf8")).toBe(skills["pdf/SKILL.md"])
    const clean = await workspace.run(["lint", "--bundle", "skills", "--format", "json"])
    expect(clean.code).toBe(0)
  })

  it("an unknown bundle is a not-found error on stderr with stdout empty; a bad --fail-on is a usage error", async () => {
    const missing = await workspace.run(["lint", "--bundle", "nope", "--format", "json"])
    expect(missing.code).toBe(1)
    expect(missing.stdout).toBe("")
    expect(missing.error().error.code).toBe("not_found")
    const usage = await workspace.run(["lint", "--fail-on", "info"])
    expect(usage.code).toBe(2)
  })

  it("a bundle whose root was deleted is a root-missing error (exit 1, not 78); the rest is still linted", async () => {
    const goneDir = workspace.folder("gone", notes)
    expect((await workspace.run(["bundle", "add", goneDir, "--name", "gone"])).code).toBe(0)
    rmSync(goneDir, { recursive: true, force: true })
    const r = await workspace.run(["lint", "--format", "json"])
    expect(r.code, r.stderr).toBe(1)
    const result = r.json()
    expect(result.bundles.map((b: { bundle: string }) => b.bundle)).toEqual(["notes", "skills", "frozen", "gone"])
    expect(result.bundles[3]).toMatchObject({ bundle: "gone", items: 0, stale: true, files: [{ path: ".", diagnostics: [{ code: "root-missing", severity: "error" }] }] })
  })
})
