import { describe, expect, it } from "@effect/vitest"
import * as fs from "node:fs"
import * as path from "node:path"
import { pathToFileURL } from "node:url"
import { Effect } from "effect"
import { AkmTest } from "../../src/layers/test/AkmTest.js"
import { bundleAdd } from "../../src/programs/bundle/add.js"
import { importFile, splitFrontmatter } from "../../src/programs/import.js"
import { findProposal } from "../../src/programs/proposals/lookup.js"
import { caller, failure, folder, mine, notesWithGuide } from "./writeFixtures.js"

describe("import", () => {
  it.effect("a local markdown file becomes knowledge named after the file, through an accepted proposal", () =>
    Effect.gen(function* () {
      const root = yield* mine
      const dir = folder({ "HTTP Caching.md": "# HTTP caching\n\nUse ETags.\n" })
      const result = yield* importFile({ source: path.join(dir, "HTTP Caching.md"), ...caller })
      expect(result).toMatchObject({ status: "accepted", title: "Import: HTTP caching", ref: "mine//knowledge/http-caching", files: ["knowledge/http-caching.md"] })
      expect(result.path).toBe(path.join(root, "knowledge/http-caching.md"))
      expect(fs.readFileSync(result.path, "utf8")).toMatch(/\n# HTTP caching\n\nUse ETags\.\n$/)
      const proposal = yield* findProposal(result.id)
      expect(proposal).toMatchObject({ recipe: "import", changeClass: "mechanical", evidence: [{ kind: "user", id: path.join(dir, "HTTP Caching.md") }] })
    }).pipe(Effect.provide(AkmTest)))

  it.effect("frontmatter supplies title, description, type and fields; a file:// URL works; relative paths resolve against the caller", () =>
    Effect.gen(function* () {
      yield* mine
      const dir = folder({
        "rollback.md": "---\ntitle: Rolling back\ndescription: How to undo a release\ntype: instruction\ntags: [release]\n---\nSteps.\n",
        "notes/plain.txt": "plain text\n"
      })
      const fromUrl = yield* importFile({ source: pathToFileURL(path.join(dir, "rollback.md")).href, ...caller })
      expect(fromUrl).toMatchObject({ title: "Import: Rolling back", files: ["instructions/rollback.md"] })
      const text = fs.readFileSync(fromUrl.path, "utf8")
      expect(text).toContain("description: How to undo a release\n")
      expect(text).toContain("tags:")
      expect(text).toContain("# Rolling back\n\nSteps.\n")
      const relative = yield* importFile({ source: "notes/plain.txt", cwd: dir, home: caller.home, type: "lesson" })
      expect(relative).toMatchObject({ title: "Import: plain", files: ["lessons/plain.md"] })
    }).pipe(Effect.provide(AkmTest)))

  it.effect("OKF bundles get a concept; non-local sources, binary files and taken names are refused", () =>
    Effect.gen(function* () {
      yield* bundleAdd({ source: notesWithGuide(), name: "notes", ...caller })
      const dir = folder({ "guide.md": "# Another guide\n", "deploy.md": "# Deploy\n\nSteps.\n", "logo.png": "\u0000PNG" })
      expect(yield* importFile({ source: path.join(dir, "deploy.md"), bundle: "notes", ...caller })).toMatchObject({ files: ["deploy.md"], ref: "notes//deploy" })
      expect(fs.readFileSync(path.join(dir, "deploy.md"), "utf8")).toBe("# Deploy\n\nSteps.\n")
      expect(failure(yield* Effect.exit(importFile({ source: "https://example.com/a.md", bundle: "notes", ...caller })))).toMatchObject({ _tag: "UsageError", hint: expect.stringContaining("local files") })
      expect(failure(yield* Effect.exit(importFile({ source: path.join(dir, "logo.png"), bundle: "notes", ...caller })))).toMatchObject({ _tag: "UsageError", message: expect.stringContaining("not UTF-8 text") })
      expect(failure(yield* Effect.exit(importFile({ source: path.join(dir, "missing.md"), bundle: "notes", ...caller })))._tag).toBe("UsageError")
      expect(failure(yield* Effect.exit(importFile({ source: path.join(dir, "guide.md"), bundle: "notes", ...caller })))).toMatchObject({ _tag: "Conflict", message: expect.stringContaining("already exists") })
    }).pipe(Effect.provide(AkmTest)))

  it("splits frontmatter from the body and leaves a block that is not YAML in the text", () => {
    expect(splitFrontmatter("---\ntitle: A\n---\nbody\n")).toEqual({ fields: { title: "A" }, body: "body\n" })
    expect(splitFrontmatter("no frontmatter\n")).toEqual({ fields: {}, body: "no frontmatter\n" })
    expect(splitFrontmatter("---\n: [bad\n---\nbody\n").fields).toEqual({})
  })
})
