import { fileURLToPath } from "node:url"
import { Effect } from "effect"
import { describe, expect, it } from "vitest"
import { genericFilesAdapter, makeGenericFilesAdapter } from "../../../src/layers/adapters/generic-files/index.js"
import { genericFilesRules } from "../../../src/layers/adapters/generic-files/rules.js"
import { readScriptHeader } from "../../../src/layers/adapters/generic-files/scriptHeader.js"
import { codes, contextFromTree, probeContextFromTree, scanDir, scanTree, treeFromDir } from "../../support/adapterHarness.js"

// The golden folder holds no `.md` file on purpose: with markdown present the
// ordered selection falls back to okf (spec 03 §1.2), and this root must select generic-files.
const fixture = fileURLToPath(new URL("../../fixtures/adapters/generic-files", import.meta.url))

describe("generic-files adapter: golden folder", () => {
  const scan = scanDir(genericFilesAdapter, fixture)

  it("indexes documents, scripts and files with their ids, types and names", () => {
    expect(scan.items.map((i) => [i.conceptId, i.projection.type, i.projection.name])).toEqual([
      ["README.markdown", "document", "Team scratch folder"],
      ["assets/logo.png", "file", "logo"],
      ["data/export.csv", "file", "export"],
      ["notes/meeting-2026-05-12.markdown", "document", "meeting 2026 05 12"],
      ["notes/todo.txt", "document", "todo"],
      ["scripts/backup-db.sh", "script", "backup db"],
      ["scripts/report.mjs", "script", "report"],
      ["scripts/rotate_logs.py", "script", "rotate logs"]
    ])
    expect(scan.diagnostics).toEqual([])
  })

  it("describes documents by their first paragraph and scripts by their leading comment", () => {
    const byId = Object.fromEntries(scan.items.map((i) => [i.conceptId, i.projection]))
    expect(byId["README.markdown"]).toMatchObject({ description: "Shared notes, helper scripts and exports of the data team. Nothing here follows a format." })
    expect(byId["README.markdown"]!.outline?.map((h) => h.text)).toEqual(["Team scratch folder", "Layout"])
    expect(byId["notes/todo.txt"]).toMatchObject({ description: "Rotate the warehouse credentials before the audit and update the runbook afterwards." })
    expect(byId["notes/todo.txt"]!.content).toContain("archive old dashboards")
    expect(byId["scripts/backup-db.sh"]).toMatchObject({
      description: "Back up the analytics Postgres database to object storage",
      tags: ["backup", "postgres"],
      hints: ["backup-db.sh"]
    })
    expect(byId["scripts/backup-db.sh"]!.content).not.toContain("shellcheck")
    expect(byId["scripts/rotate_logs.py"]!.description).toBe("Compress log files older than seven days and delete those older than ninety.")
    expect(byId["scripts/report.mjs"]!.description).toBe("Print yesterday's row counts per table as a Markdown table.")
    // Opaque files are named, never read.
    expect(byId["assets/logo.png"]).toEqual({ name: "logo", type: "file", hints: ["logo.png"] })
  })

  it("never reads an opaque file", () => {
    const ctx = contextFromTree({ "assets/logo.png": "\u0000binary" })
    const read: Array<string> = []
    const spying = { ...ctx, readText: (p: string) => (read.push(p), ctx.readText(p)) }
    Effect.runSync(genericFilesAdapter.project({ conceptId: "assets/logo.png", files: ["assets/logo.png"], kind: "file" }, spying))
    expect(read).toEqual([])
  })

  it("scans deterministically (R-AD-2)", () => {
    expect(scanDir(genericFilesAdapter, fixture)).toEqual(scan)
  })

  it("is read-only and never chosen by a probe (spec 03 §1.2: it is the fallback)", () => {
    expect(genericFilesAdapter.writable).toBe(false)
    expect(genericFilesAdapter.create).toBeUndefined()
    expect(genericFilesAdapter.authoringContext).toBeUndefined()
    expect(Effect.runSync(genericFilesAdapter.probe(probeContextFromTree(treeFromDir(fixture))))).toBe(false)
    expect(Object.keys(treeFromDir(fixture)).filter((p) => p.endsWith(".md"))).toEqual([])
  })
})

describe("generic-files adapter: plan and project", () => {
  it("strips .md only and keeps every other extension in the concept id", () => {
    const { items } = scanTree(genericFilesAdapter, { "a.md": "# A\n", "b.markdown": "# B\n", "c.txt": "c", "d.sh": "# d\n", "e": "e" })
    expect(items.map((i) => [i.conceptId, i.projection.type])).toEqual([["a", "document"], ["b.markdown", "document"], ["c.txt", "document"], ["d.sh", "script"], ["e", "file"]])
  })

  it("a markdown file and an extension-less twin share an id: the markdown file wins (R-REF-5)", () => {
    const result = scanTree(genericFilesAdapter, { "notes/plan": "raw", "notes/plan.md": "# Plan\n" })
    expect(result.items.map((i) => i.files[0])).toEqual(["notes/plan.md"])
    expect(result.diagnostics.map((d) => [d.code, d.severity, d.path])).toEqual([["duplicate-concept-id", "error", "notes/plan"]])
  })

  it("uses frontmatter title and description when a markdown file has them, and reports a broken block", () => {
    const ok = scanTree(genericFilesAdapter, { "x.md": "---\ntitle: Named\ndescription: Said so\n---\n# Heading\n" })
    expect(ok.items[0]!.projection).toMatchObject({ name: "Named", description: "Said so" })
    const broken = scanTree(genericFilesAdapter, { "y.md": "---\ntitle: [\n---\n# Salvaged\n\nText\n" })
    expect(broken.items[0]!.projection).toMatchObject({ name: "Salvaged", type: "document" })
    expect(broken.diagnostics.map((d) => [d.code, d.severity, d.line])).toEqual([["invalid-frontmatter", "error", 2]])
  })

  it("reports paths that cannot be concept ids", () => {
    expect(codes(scanTree(genericFilesAdapter, { "a#b.txt": "x" }).diagnostics)).toEqual(["invalid-concept-id"])
  })

  it("the rule table decides what is reported (R-AD-3)", () => {
    const tree = { "notes/plan": "raw", "notes/plan.md": "# Plan\n" }
    const lenient = makeGenericFilesAdapter(genericFilesRules.filter((r) => r.code !== "duplicate-concept-id"))
    expect(scanTree(lenient, tree).diagnostics).toEqual([])
    const warning = makeGenericFilesAdapter(genericFilesRules.map((r) => (r.code === "duplicate-concept-id" ? { ...r, severity: "warning" as const } : r)))
    expect(codes(scanTree(warning, tree).diagnostics, "warning")).toEqual(["duplicate-concept-id"])
  })
})

describe("generic-files adapter: files named like secrets (R-DB-2)", () => {
  const value = "CANARY_generic_files_secret_value"
  const secretNames = [
    "app.env", "config/.env", ".env.production", "deploy/.npmrc", ".netrc", ".pgpass", "credentials", "aws/credentials.json", "credentials.md",
    "tls/server.pem", "tls/server.key", "cert.p12", "cert.pfx", "ssh/id_rsa", "ssh/id_rsa.pub", "ssh/id_ed25519", "vault.kdbx", "secrets.yaml", "secrets.txt", "ops/SECRETS.md"
  ]

  it("each is a secret item listed by name only: never read, no content, description or hints", () => {
    const tree = Object.fromEntries([...secretNames.map((name) => [name, `TOKEN=${value}\n`]), ["notes/readme.txt", "ordinary"]])
    const ctx = contextFromTree(tree)
    const read: Array<string> = []
    const spying = { ...ctx, readText: (p: string) => (read.push(p), ctx.readText(p)) }
    const planned = genericFilesAdapter.plan(ctx.files, ctx.bundle)
    const projected = planned.items.map((item) => [item.files[0], Effect.runSync(genericFilesAdapter.project(item, spying)).projection] as const)
    for (const [file, projection] of projected) {
      if (file === "notes/readme.txt") continue
      expect(projection, file).toEqual({ type: "secret", name: file!.slice(file!.lastIndexOf("/") + 1) })
    }
    expect(read).toEqual(["notes/readme.txt"])
    expect(JSON.stringify(projected)).not.toContain(value)
  })

  it("ordinary names stay documents, scripts and files", () => {
    const { items } = scanTree(genericFilesAdapter, { "environment.md": "# Env\n", "keys.txt": "k", "monkey": "m", "secret-santa.md": "# S\n", "run.sh": "# r\n" })
    expect(items.map((i) => i.projection.type)).toEqual(["document", "document", "file", "script", "document"])
  })
})

describe("generic-files adapter: script headers", () => {
  it.each([
    ["sh", "#!/bin/sh\n# @description Sync the mirror\n# @tags sync, mirror\nrsync -a src dst\n", "Sync the mirror", ["sync", "mirror"]],
    ["sh", "#!/bin/bash\n\n# Rebuild the search index.\n# Safe to run twice.\nmake index\n", "Rebuild the search index.", []],
    ["py", "#!/usr/bin/env python3\n# -*- coding: utf-8 -*-\n\"\"\"\nFetch exchange rates.\n\"\"\"\n", "Fetch exchange rates.", []],
    ["ts", "/**\n * Seed the database.\n * @tags seed\n */\nexport {}\n", "Seed the database.", ["seed"]],
    ["js", "'use strict'\n// too late: code came first\n", undefined, []],
    ["ps1", "<#\n.SYNOPSIS\nClean temp files\n#>\n", "Clean temp files", []],
    ["bat", "@echo off\nREM Map the shared drive\nnet use Z: \\\\srv\\share\n", "Map the shared drive", []],
    ["lua", "-- Reload the config\nreturn {}\n", "Reload the config", []],
    ["js", ";(async () => {})()\n", undefined, []]
  ] as const)("%s: %j", (extension, source, description, tags) => {
    const header = readScriptHeader(source, extension)
    expect(header.description).toBe(description)
    expect(header.tags).toEqual(tags)
  })
})
