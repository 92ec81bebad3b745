import { describe, expect, it } from "@effect/vitest"
import * as fs from "node:fs"
import * as path from "node:path"
import { Effect, Exit } from "effect"
import type { Diagnostic } from "../../src/domain/Diagnostic.js"
import { AkmTest } from "../../src/layers/test/AkmTest.js"
import { bundleAdd } from "../../src/programs/bundle/add.js"
import { collectFixes, groupByFile, lint } from "../../src/programs/lint.js"
import { proposalAccept } from "../../src/programs/proposals/accept.js"
import { findProposal } from "../../src/programs/proposals/lookup.js"
import { caller, folder } from "./writeFixtures.js"

const defaults = { strict: false, fix: false, failOn: "error" as const }

const notes = {
  "index.md": "# Notes\n",
  "guide.md": "---\ntype: guide\ntitle: Guide\n---\n# Guide\n\nSee [missing](missing.md).\n",
  "untyped.md": "plain text without frontmatter\n"
}
const skills = {
  "pdf/SKILL.md": "---\nname: pdf-tools\ndescription: Fill PDF forms. Use when a user asks to fill a PDF form.\n---\n# PDF\n",
  "csv/SKILL.md": "---\nname: csv\ndescription: Clean CSV files. Use when a CSV needs cleaning.\n---\n# CSV\n"
}

describe("lint", () => {
  it.effect("reports every bundle's diagnostics grouped by file, with counts; an error makes it not ok", () =>
    Effect.gen(function* () {
      yield* bundleAdd({ source: folder(notes), name: "notes", ...caller })
      yield* bundleAdd({ source: folder(skills), name: "skills", ...caller })
      const result = yield* lint(defaults)
      expect(result.bundles.map((b) => [b.bundle, b.adapter, b.items])).toEqual([["notes", "okf", 2], ["skills", "agent-skills", 2]])
      const [okf, agentSkills] = result.bundles
      expect(okf!.files.map((f) => f.path)).toEqual(["guide.md", "untyped.md"])
      expect(okf!.files[0]!.diagnostics).toEqual([expect.objectContaining({ code: "dangling-link", severity: "warning", line: 7, ref: "notes//guide" })])
      expect(okf!.counts.error).toBe(0)
      expect(agentSkills!.files).toEqual([{
        path: "pdf/SKILL.md",
        diagnostics: [expect.objectContaining({ code: "name-directory-mismatch", severity: "error", fixable: true })]
      }])
      expect(result.counts).toEqual({
        error: okf!.counts.error + agentSkills!.counts.error,
        warning: okf!.counts.warning + agentSkills!.counts.warning,
        info: okf!.counts.info + agentSkills!.counts.info
      })
      expect(result.ok).toBe(false)
      const only = yield* lint({ ...defaults, bundle: "notes" })
      expect(only.bundles.map((b) => b.bundle)).toEqual(["notes"])
      expect(only.ok).toBe(true)
      expect((yield* lint({ ...defaults, bundle: "notes", failOn: "warning" })).ok).toBe(false)
    }).pipe(Effect.provide(AkmTest)))

  it.effect("--strict turns conformance findings into errors", () =>
    Effect.gen(function* () {
      yield* bundleAdd({ source: folder(notes), name: "notes", ...caller })
      const lenient = yield* lint(defaults)
      const strict = yield* lint({ ...defaults, strict: true })
      const severityOf = (r: typeof lenient) => r.bundles[0]!.files.find((f) => f.path === "untyped.md")!.diagnostics.find((d) => d.code === "okf-nonconformant")?.severity
      expect(severityOf(lenient)).toBe("warning")
      expect(severityOf(strict)).toBe("error")
      expect(strict.ok).toBe(false)
    }).pipe(Effect.provide(AkmTest)))

  it.effect("an unknown --bundle is not found; no bundles is an empty, ok result", () =>
    Effect.gen(function* () {
      expect(yield* lint(defaults)).toEqual({ bundles: [], counts: { error: 0, warning: 0, info: 0 }, ok: true })
      const exit = yield* Effect.exit(lint({ ...defaults, bundle: "nope" }))
      expect(Exit.isFailure(exit) && exit.cause._tag === "Fail" && exit.cause.error._tag).toBe("NotFound")
    }).pipe(Effect.provide(AkmTest)))

  it.effect("--fix proposes renaming a skill folder to the skill's name for review and never renames the skill (issue 15 item 8)", () =>
    Effect.gen(function* () {
      const dir = folder({ ...skills, "pdf/references/forms.md": "# Forms\n" })
      yield* bundleAdd({ source: dir, name: "skills", ...caller })
      const fixed = yield* lint({ ...defaults, fix: true })
      const fix = fixed.bundles[0]!.fix!
      expect(fix).toMatchObject({ available: 1, applied: 0, review: { fixes: 1, proposal: expect.any(String) } })
      expect(fix.note).toContain("1 folder rename awaits review")
      // Nothing is written until the proposal is accepted: the skill keeps its name, the folder its files.
      expect(fs.readFileSync(path.join(dir, "pdf/SKILL.md"), "utf8")).toBe(skills["pdf/SKILL.md"])
      expect(fs.existsSync(path.join(dir, "pdf-tools"))).toBe(false)
      // Asking again points at the same pending proposal rather than making a second one.
      expect((yield* lint({ ...defaults, fix: true })).bundles[0]!.fix!.review).toEqual(fix.review)
      const proposal = yield* findProposal(fix.review!.proposal)
      expect(proposal).toMatchObject({ status: "pending", changeClass: "semantic" })
      yield* proposalAccept(fix.review!.proposal)
      expect(fs.readFileSync(path.join(dir, "pdf-tools/SKILL.md"), "utf8")).toBe(skills["pdf/SKILL.md"])
      expect(fs.readFileSync(path.join(dir, "pdf-tools/references/forms.md"), "utf8")).toBe("# Forms\n")
      expect(fs.existsSync(path.join(dir, "pdf/SKILL.md"))).toBe(false)
      const after = yield* lint({ ...defaults, fix: true })
      expect(after.bundles[0]!.fix).toEqual({ available: 0, applied: 0 })
      expect(after.ok).toBe(true)
    }).pipe(Effect.provide(AkmTest)))

  it.effect("--fix proposes no rename when a folder of the skill's name exists", () =>
    Effect.gen(function* () {
      const dir = folder({ ...skills, "pdf-tools/notes.txt": "taken\n" })
      yield* bundleAdd({ source: dir, name: "skills", ...caller })
      const result = yield* lint({ ...defaults, fix: true })
      expect(result.bundles[0]!.fix).toEqual({ available: 0, applied: 0 })
    }).pipe(Effect.provide(AkmTest)))

  it.effect("--fix on a read-only bundle reports that fixes cannot be applied and writes nothing", () =>
    Effect.gen(function* () {
      const dir = folder(skills)
      yield* bundleAdd({ source: dir, name: "skills", writable: false, ...caller })
      const result = yield* lint({ ...defaults, fix: true })
      expect(result.bundles[0]!.fix).toEqual({ available: 1, applied: 0, note: "bundle 'skills' is read-only; fixes cannot be applied" })
      expect(result.ok).toBe(false)
      expect(fs.readFileSync(path.join(dir, "pdf/SKILL.md"), "utf8")).toBe(skills["pdf/SKILL.md"])
    }).pipe(Effect.provide(AkmTest)))
  it.effect("a bundle whose root is gone is reported as root-missing and stale; the other bundles are still linted", () =>
    Effect.gen(function* () {
      const gone = folder(notes)
      yield* bundleAdd({ source: gone, name: "gone", ...caller })
      yield* bundleAdd({ source: folder(skills), name: "skills", ...caller })
      fs.rmSync(gone, { recursive: true, force: true })
      const result = yield* lint(defaults)
      expect(result.bundles.map((b) => [b.bundle, b.items, b.stale])).toEqual([["gone", 0, true], ["skills", 2, undefined]])
      expect(result.bundles[0]!.files).toEqual([{ path: ".", diagnostics: [expect.objectContaining({ code: "root-missing", severity: "error" })] }])
      expect(result.bundles[0]!.counts).toEqual({ error: 1, warning: 0, info: 0 })
      expect(result.counts.error).toBe(1 + result.bundles[1]!.counts.error)
      expect(result.ok).toBe(false)
      expect((yield* lint({ ...defaults, bundle: "gone", fix: true })).bundles[0]!.stale).toBe(true)
    }).pipe(Effect.provide(AkmTest)))
})

describe("lint helpers", () => {
  const d = (p: string, code: string, fixPaths?: ReadonlyArray<string>, bundle = "b"): Diagnostic => ({
    code,
    severity: "error",
    path: p,
    message: code,
    ...(fixPaths === undefined ? {} : { fix: fixPaths.map((fp) => ({ bundle, path: fp, beforeHash: null, after: "x" })) })
  })

  it("collectFixes takes each fix once, skipping fixes that touch a path already changed or another bundle", () => {
    const result = collectFixes("b", [d("a", "one", ["a"]), d("a", "two", ["a", "c"]), d("c", "three", ["c"]), d("x", "other", ["x"], "elsewhere"), d("n", "none")])
    expect(result.changes.map((c) => c.path)).toEqual(["a", "c"])
    expect(result).toMatchObject({ fixes: 2, available: 4 })
  })

  it("groupByFile keeps order and marks fixable diagnostics", () => {
    expect(groupByFile([d("a", "one", ["a"]), d("b", "two"), d("a", "three")])).toEqual([
      { path: "a", diagnostics: [{ code: "one", severity: "error", message: "one", fixable: true }, { code: "three", severity: "error", message: "three" }] },
      { path: "b", diagnostics: [{ code: "two", severity: "error", message: "two" }] }
    ])
  })
})
