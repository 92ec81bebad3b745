import { describe, expect, it } from "@effect/vitest"
import * as fs from "node:fs"
import * as path from "node:path"
import { Effect } from "effect"
import { AkmTest } from "../../src/layers/test/AkmTest.js"
import { bundleAdd } from "../../src/programs/bundle/add.js"
import { createItem } from "../../src/programs/create.js"
import { proposalList } from "../../src/programs/proposals/list.js"
import { caller, failure, folder, mine } from "./writeFixtures.js"

describe("create", () => {
  it.effect("renders a native item with the bundle's adapter and applies it as a proposal", () =>
    Effect.gen(function* () {
      const root = yield* mine
      const result = yield* createItem({ type: "knowledge", title: "Release checklist", description: "What to check before a release", body: "- tests\n- changelog\n", ...caller })
      expect(result).toMatchObject({ status: "accepted", bundle: "mine", ref: "mine//knowledge/release-checklist", path: path.join(root, "knowledge/release-checklist.md") })
      expect(fs.readFileSync(result.path, "utf8")).toBe("---\ndescription: What to check before a release\n---\n\n# Release checklist\n\n- tests\n- changelog\n")
      const skill = yield* createItem({ type: "skill", title: "pdf-forms", description: "Fill PDF forms. Use when a user asks to fill a PDF form.", body: "# PDF forms\n", ...caller })
      expect(skill).toMatchObject({ ref: "mine//skills/pdf-forms", files: ["skills/pdf-forms/SKILL.md"] })
      expect((yield* proposalList({ recipe: "create" })).proposals.map((p) => p.title)).toEqual(["Create skill: pdf-forms", "Create knowledge: Release checklist"])
    }).pipe(Effect.provide(AkmTest)))

  it.effect("reads the body from a file; refuses both body flags, an empty title, and what the adapter refuses", () =>
    Effect.gen(function* () {
      yield* mine
      const dir = folder({ "body.md": "From a file.\n" })
      const fromFile = yield* createItem({ type: "lesson", title: "Read the logs", bodyFile: path.join(dir, "body.md"), ...caller })
      expect(fs.readFileSync(fromFile.path, "utf8")).toContain("From a file.\n")
      expect(failure(yield* Effect.exit(createItem({ type: "lesson", title: "x", body: "a", bodyFile: path.join(dir, "body.md"), ...caller })))._tag).toBe("UsageError")
      expect(failure(yield* Effect.exit(createItem({ type: "lesson", title: " ", ...caller })))._tag).toBe("UsageError")
      expect(failure(yield* Effect.exit(createItem({ type: "widget", title: "x", ...caller })))).toMatchObject({ _tag: "Conflict", message: expect.stringContaining("'widget' is not an akm type") })
      expect(failure(yield* Effect.exit(createItem({ type: "lesson", title: "Read the logs", ...caller })))).toMatchObject({ _tag: "Conflict", message: expect.stringContaining("already exists") })
    }).pipe(Effect.provide(AkmTest)))

  it.effect("--field key=value gives the adapter its fields (a repeated key is a list, values redacted); a field without = is a usage error and nothing is written", () =>
    Effect.gen(function* () {
      const root = yield* mine
      const result = yield* createItem({ type: "knowledge", title: "Runbook", body: "Steps.\n", fields: ["tags=ops", "tags=release", "owner=team=platform", "api_key=sk-proj-0123456789abcdefghijklmnopqrstuv"], ...caller })
      const written = fs.readFileSync(result.path, "utf8")
      expect(written).toContain("tags:\n  - ops\n  - release\n")
      expect(written).toContain("owner: team=platform\n")
      expect(written).not.toContain("sk-proj-0123456789")
      const error = failure(yield* Effect.exit(createItem({ type: "knowledge", title: "Other", fields: ["owner=x", "tags"], ...caller })))
      expect(error).toMatchObject({ _tag: "UsageError", message: expect.stringContaining("--field 'tags' has no '='") })
      expect(fs.existsSync(path.join(root, "knowledge/other.md"))).toBe(false)
    }).pipe(Effect.provide(AkmTest)))

  it.effect("an adapter without an authoring path is refused with a hint", () =>
    Effect.gen(function* () {
      yield* bundleAdd({ source: folder({ "site/page.html": "<p>x</p>" }), name: "files", adapter: "generic-files", ...caller })
      const error = failure(yield* Effect.exit(createItem({ type: "knowledge", title: "x", bundle: "files", ...caller })))
      expect(error._tag).toBe("Conflict")
    }).pipe(Effect.provide(AkmTest)))
})
