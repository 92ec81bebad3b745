import { rmSync } from "node:fs"
import { join } from "node:path"
import { afterAll, beforeAll, describe, expect, it } from "vitest"
import { makeWorkspace } from "../support/cli.js"
import { CANARY, guideText, notesFiles, secretsFiles, skillsFiles } from "../support/indexedWorkspace.js"

// akm show end to end (spec 04 §4, spec 09 §1–2): the JSON shape, the text view, exit codes, no secret ever printed.

describe("akm show", () => {
  const workspace = makeWorkspace()
  afterAll(workspace.cleanup)
  const notes = workspace.folder("notes", notesFiles)
  const skills = workspace.folder("skills", skillsFiles)
  const vault = workspace.folder("vault", secretsFiles)

  beforeAll(async () => {
    for (const [dir, name] of [[notes, "notes"], [skills, "skills"], [vault, "vault"]] as const) {
      const added = await workspace.run(["bundle", "add", dir, "--name", name])
      expect(added.code, added.stderr).toBe(0)
    }
    const indexed = await workspace.run(["index", "--quiet"])
    expect(indexed.code, indexed.stderr).toBe(0)
  })

  it("prints the JSON result with schemaVersion, the item's text and estimated tokens until a count is cached", async () => {
    const r = await workspace.run(["show", "notes//guide", "--format", "json"])
    expect(r.code, r.stderr).toBe(0)
    expect(r.stderr).toBe("")
    expect(r.json()).toMatchObject({
      schemaVersion: 1,
      ref: "notes//guide",
      level: "full",
      bundle: "notes",
      type: "guide",
      name: "Deploy guide",
      description: "How to deploy the web app",
      tags: ["deploy", "ops"],
      tokensEstimated: true,
      contentTokensEstimated: true,
      path: join(notes, "guide.md"),
      editable: true,
      stale: false,
      valuesHidden: false,
      content: guideText,
      lines: { from: 1, to: 79 }
    })
  })

  it("the text view of full is the text itself; outline lists headings, resources and the next command", async () => {
    const full = await workspace.run(["show", "guide", "--format", "text"])
    expect(full.code).toBe(0)
    expect(full.stdout).toBe(guideText)
    const outline = await workspace.run(["show", "skills//pdf", "--level", "outline", "--format", "text"])
    expect(outline.code, outline.stderr).toBe(0)
    expect(outline.stdout).toContain("Outline")
    expect(outline.stdout).toMatch(/Steps\s+#steps\s+line 9/)
    // Sizes until a token count is cached (show never loads the tokenizer, spec 04 §4).
    expect(outline.stdout).toMatch(/scripts\/fill\.py\s+\d+ B\s+skills\/\/pdf\/scripts\/fill\.py/)
    expect(outline.stdout).toContain("next: akm show skills//pdf")
  })

  it("--format md is markdown: the item's text without frontmatter under a title; a script fenced; card and outline as lists (issue 15 item 7)", async () => {
    const full = await workspace.run(["show", "notes//guide", "--format", "md"])
    expect(full.code, full.stderr).toBe(0)
    expect(full.stdout.startsWith("# Deploy guide\n\nRead this before a release. See [the runbook](runbook.md).\n\n## Install\n")).toBe(true)
    expect(full.stdout).not.toContain("title: Deploy guide")
    const section = await workspace.run(["show", "notes//guide#secrets", "--format", "md"])
    expect(section.stdout).toBe("# Deploy guide\n\n### Secrets\n\nNever commit them.\n")
    const script = await workspace.run(["show", "skills//pdf/scripts/fill.py", "--format", "md"])
    expect(script.stdout).toBe("# fill.py\n\n```py\n#!/usr/bin/env python3\n# fill a form\nprint('filled')\n```\n")
    const cut = await workspace.run(["show", "notes//guide", "--max-tokens", "60", "--format", "md"])
    expect(cut.stdout).toMatch(/\n> truncated: \d+ of \d+ tokens shown; .*\n$/)
    const outline = await workspace.run(["show", "notes//guide", "--level", "outline", "--format", "md"])
    expect(outline.stdout).toContain("# Deploy guide\n\nHow to deploy the web app\n\n- ref: `notes//guide`\n- type: guide\n- tags: deploy, ops\n")
    expect(outline.stdout).toContain("## Outline\n\n- [Deploy guide](#deploy-guide) (line 7)\n  - [Install](#install) (line 11)\n")
    expect(outline.stdout).toContain("## Links\n\n- `runbook`\n")
  })

  it("--max-tokens cuts and says so; --lines and #fragment select parts", async () => {
    const cut = await workspace.run(["show", "notes//guide", "--max-tokens", "300", "--format", "text"])
    expect(cut.code).toBe(0)
    expect(cut.stdout).toMatch(/\[truncated before a heading: \d+ of \d+ tokens shown; the rest starts at line \d+: akm show notes\/\/guide --lines \d+:79/)
    const section = await workspace.run(["show", "notes//guide#secrets", "--format", "json"])
    expect(section.json()).toMatchObject({ fragment: "secrets", content: "### Secrets\n\nNever commit them.", lines: { from: 77, to: 79 } })
    const lines = await workspace.run(["show", "notes//guide", "--lines", "7:7", "--format", "json"])
    expect(lines.json().content).toBe("# Deploy guide")
  })

  it("usage errors exit 2; unknown refs and sections exit 1 with a hint", async () => {
    const badLines = await workspace.run(["show", "notes//guide", "--lines", "9:3", "--format", "json"])
    expect(badLines.code).toBe(2)
    expect(badLines.stdout).toBe("")
    expect(badLines.error().error.code).toBe("usage")
    expect((await workspace.run(["show", "../../etc/passwd", "--format", "json"])).code).toBe(2)
    const unknown = await workspace.run(["show", "nope", "--format", "json"])
    expect(unknown.code).toBe(1)
    expect(unknown.error().error).toMatchObject({ code: "not_found", message: expect.stringContaining("notes//nope, skills//nope, vault//nope") })
    const section = await workspace.run(["show", "notes//guide#nope", "--format", "json"])
    expect(section.code).toBe(1)
    expect(section.error().error.hint).toBe("available: deploy-guide, install, configure, secrets")
  })

  it("never prints an env or secret value, in any format", async () => {
    for (const args of [["show", "vault//env/app"], ["show", "vault//secrets/npm-token"], ["show", "vault//env/app", "--level", "outline"]]) {
      for (const format of ["json", "text", "yaml"]) {
        const r = await workspace.run([...args, "--format", format])
        expect(r.code, r.stderr).toBe(0)
        expect(r.stdout + r.stderr).not.toContain(CANARY)
        expect(r.stdout + r.stderr).not.toContain("3000")
      }
    }
    expect((await workspace.run(["show", "vault//env/app", "--format", "text"])).stdout).toBe("app: 2 keys (values hidden)\n- PORT\n- API_TOKEN\n")
  })

  it("a file that vanished since indexing exits 1 with a hint to run akm index", async () => {
    rmSync(join(notes, "runbook.md"))
    const r = await workspace.run(["show", "notes//runbook", "--format", "json"])
    expect(r.code).toBe(1)
    expect(r.stdout).toBe("")
    expect(r.error().error.hint).toContain("akm index")
  })
})
