import { afterAll, describe, expect, it } from "@effect/vitest"
import { createHash } from "node:crypto"
import { Cause, Effect, Exit } from "effect"
import * as fs from "node:fs"
import * as os from "node:os"
import * as path from "node:path"
import { countTokens } from "gpt-tokenizer/encoding/o200k_base"
import { trustedText } from "../../src/domain/Redaction.js"
import { AkmTest } from "../../src/layers/test/AkmTest.js"
import { bundleAdd } from "../../src/programs/bundle/add.js"
import { show } from "../../src/programs/show.js"
import { IndexStore } from "../../src/services/IndexStore.js"
import { UsageLog } from "../../src/services/UsageLog.js"
import { CANARY, folder, guideText, indexedWorkspace, notesFiles, removeFolders, secretsFiles, skillsFiles } from "../support/indexedWorkspace.js"

afterAll(removeFolders)

const failure = <A, E>(exit: Exit.Exit<A, E>) => {
  if (Exit.isSuccess(exit)) throw new Error(`expected a failure, got ${JSON.stringify(exit.value)}`)
  const error = Cause.failureOption(exit.cause)
  if (error._tag === "None") throw new Error(Cause.pretty(exit.cause))
  return error.value as { _tag: string; message: string; hint: string }
}

describe("show (spec 04 §4)", () => {
  it.effect("full is the default: the file as it is, tokens estimated until an exact count is cached (spec 04 §4), one usage event", () =>
    Effect.gen(function* () {
      const roots = yield* indexedWorkspace({ notes: notesFiles })
      const result = yield* show({ ref: "notes//guide" })
      expect(result).toMatchObject({
        ref: "notes//guide",
        level: "full",
        bundle: "notes",
        type: "guide",
        name: "Deploy guide",
        description: "How to deploy the web app",
        path: path.join(roots.notes!, "guide.md"),
        editable: true,
        stale: false,
        valuesHidden: false,
        tokensEstimated: true,
        contentTokensEstimated: true,
        content: guideText,
        lines: { from: 1, to: guideText.split("\n").length - 1 }
      })
      // No exact count cached: bytes/4, and show neither counts nor caches (the tokenizer stays unloaded).
      expect(result.tokens).toBe(Math.ceil(Buffer.byteLength(guideText) / 4))
      expect(result.contentTokens).toBe(result.tokens)
      const index = yield* IndexStore
      const doc = (yield* index.resolve("notes//guide"))!
      expect(yield* index.cachedTokens(doc.hash)).toBeUndefined()
      // Once a count is cached (curate, --max-tokens), show prints it exactly.
      yield* index.storeTokens(doc.hash, countTokens(guideText))
      const cached = yield* show({ ref: "notes//guide", track: false })
      expect(cached).toMatchObject({ tokens: countTokens(guideText), tokensEstimated: false, contentTokens: countTokens(guideText) })
      expect(cached.contentTokensEstimated).toBeUndefined()
      const events = yield* (yield* UsageLog).events({ ref: "notes//guide" })
      expect(events.map((e) => [e.kind, e.source])).toEqual([["show", "user"]])
    }).pipe(Effect.provide(AkmTest)))

  it.effect("card and outline: facts, headings with slugs and lines, links, and the next command", () =>
    Effect.gen(function* () {
      yield* indexedWorkspace({ notes: notesFiles })
      const card = yield* show({ ref: "notes//guide", level: "card" })
      expect(card.content).toBeUndefined()
      expect(card.outline).toBeUndefined()
      expect(card.tags).toEqual(["deploy", "ops"])
      expect(card.next).toBe("akm show notes//guide --level outline")
      const outline = yield* show({ ref: "notes//guide", level: "outline" })
      expect(outline.outline!.map((h) => [h.depth, h.text, h.slug, h.line])).toEqual([
        [1, "Deploy guide", "deploy-guide", 7],
        [2, "Install", "install", 11],
        [2, "Configure", "configure", 44],
        [3, "Secrets", "secrets", 77]
      ])
      expect(outline.links).toEqual(expect.arrayContaining([expect.stringContaining("runbook")]))
      expect(outline.resources).toEqual([])
      expect(outline.next).toBe("akm show notes//guide")
    }).pipe(Effect.provide(AkmTest)))

  it.effect("a skill's outline lists its references and scripts with refs, sizes and cached token counts; a script's ref shows the script", () =>
    Effect.gen(function* () {
      yield* indexedWorkspace({ skills: skillsFiles })
      const outline = yield* show({ ref: "skills//pdf", level: "outline" })
      expect(outline.type).toBe("skill")
      // No count cached yet: sizes only (show never loads the tokenizer, spec 04 §4).
      expect(outline.resources).toEqual([
        { path: "references/forms.md", ref: "skills//pdf/references/forms", type: "reference", bytes: skillsFiles["pdf/references/forms.md"]!.length },
        { path: "scripts/fill.py", ref: "skills//pdf/scripts/fill.py", bytes: skillsFiles["pdf/scripts/fill.py"]!.length }
      ])
      // A count cached for a file's content hash (sha256 of its bytes) is printed.
      const fill = skillsFiles["pdf/scripts/fill.py"]!
      yield* (yield* IndexStore).storeTokens(createHash("sha256").update(fill).digest("hex"), countTokens(fill))
      const counted = yield* show({ ref: "skills//pdf", level: "outline", track: false })
      expect(counted.resources![1]).toEqual({ path: "scripts/fill.py", ref: "skills//pdf/scripts/fill.py", bytes: fill.length, tokens: countTokens(fill) })
      const script = yield* show({ ref: "skills//pdf/scripts/fill.py" })
      expect(script).toMatchObject({ ref: "skills//pdf/scripts/fill.py", type: "resource", name: "fill.py", partOf: "skills//pdf", content: skillsFiles["pdf/scripts/fill.py"], stale: false })
      // Reading a skill's file is using the skill: the outline and the script are two reads of it.
      expect((yield* (yield* UsageLog).events({ ref: "skills//pdf" })).length).toBe(2)
      const reference = yield* show({ ref: "skills//pdf/references/forms" })
      expect(reference.type).toBe("reference")
    }).pipe(Effect.provide(AkmTest)))

  it.effect("a #fragment shows one section (R-REF-7); a miss lists the slugs", () =>
    Effect.gen(function* () {
      yield* indexedWorkspace({ notes: notesFiles })
      const section = yield* show({ ref: "notes//guide#configure" })
      expect(section.fragment).toBe("configure")
      expect(section.content!.startsWith("## Configure\n")).toBe(true)
      expect(section.content!.endsWith("Never commit them.")).toBe(true)
      expect(section.lines).toEqual({ from: 44, to: 79 })
      expect(section.contentTokens).toBe(Math.ceil(Buffer.byteLength(section.content!) / 4))
      expect(section.contentTokensEstimated).toBe(true)
      expect(section.tokens).toBe(Math.ceil(Buffer.byteLength(guideText) / 4))
      const miss = failure(yield* Effect.exit(show({ ref: "notes//guide#nope" })))
      expect(miss._tag).toBe("NotFound")
      expect(miss.hint).toBe("available: deploy-guide, install, configure, secrets")
    }).pipe(Effect.provide(AkmTest)))

  it.effect("--lines selects file lines; with a #fragment it is a usage error", () =>
    Effect.gen(function* () {
      yield* indexedWorkspace({ notes: notesFiles })
      const excerpt = yield* show({ ref: "notes//guide", lines: "7:9" })
      expect(excerpt.content).toBe("# Deploy guide\n\nRead this before a release. See [the runbook](runbook.md).")
      expect(excerpt.lines).toEqual({ from: 7, to: 9 })
      expect(failure(yield* Effect.exit(show({ ref: "notes//guide#install", lines: "1:2" })))._tag).toBe("UsageError")
      expect(failure(yield* Effect.exit(show({ ref: "notes//guide", lines: "9:3" })))._tag).toBe("UsageError")
      expect(failure(yield* Effect.exit(show({ ref: "notes//guide", lines: "900:" })))._tag).toBe("UsageError")
    }).pipe(Effect.provide(AkmTest)))

  it.effect("--max-tokens cuts before a heading, stays within the limit, and says where the rest starts", () =>
    Effect.gen(function* () {
      yield* indexedWorkspace({ notes: notesFiles })
      // --max-tokens counts exactly and caches the count: the show after it prints the exact figure.
      yield* show({ ref: "notes//guide", maxTokens: 100_000, track: false })
      const full = yield* show({ ref: "notes//guide" })
      expect(full).toMatchObject({ tokens: countTokens(guideText), tokensEstimated: false })
      const cut = yield* show({ ref: "notes//guide", maxTokens: Math.floor(full.tokens * 0.6) })
      expect(cut.truncated).toMatchObject({ at: "heading", maxTokens: Math.floor(full.tokens * 0.6), totalTokens: full.tokens, toLine: 42 })
      expect(cut.contentTokens).toBeLessThanOrEqual(Math.floor(full.tokens * 0.6))
      expect(countTokens(cut.content!)).toBe(cut.contentTokens)
      expect(cut.content!.endsWith("Install step 30: run the installer with the flags the platform team documented.")).toBe(true)
      expect(cut.next).toBe(`akm show notes//guide --lines 43:${full.lines!.to}`)
      // Smaller than the first section: cut at a line end instead.
      const tiny = yield* show({ ref: "notes//guide", maxTokens: 8 })
      expect(tiny.truncated!.at).toBe("line")
      expect(tiny.contentTokens).toBeLessThanOrEqual(8)
      expect(tiny.content).toBe("---\ntype: guide")
      for (const max of [1, 3, 17, 50, 123, 401, full.tokens - 1]) {
        const shown = yield* show({ ref: "notes//guide", maxTokens: max, track: false })
        expect(countTokens(shown.content!), `--max-tokens ${max}`).toBeLessThanOrEqual(max)
      }
      // Large enough: nothing is cut.
      expect((yield* show({ ref: "notes//guide", maxTokens: full.tokens })).truncated).toBeUndefined()
      expect(failure(yield* Effect.exit(show({ ref: "notes//guide", maxTokens: 0 })))._tag).toBe("UsageError")
    }).pipe(Effect.provide(AkmTest)))

  it.effect("short refs resolve to the default bundle first, then config order (R-REF-3); unknown refs name the forms tried", () =>
    Effect.gen(function* () {
      yield* indexedWorkspace({ notes: notesFiles, more: { "index.md": "# More\n", "guide.md": "---\ntitle: Other guide\n---\n# Other\n" } })
      expect((yield* show({ ref: "guide", level: "card" })).ref).toBe("notes//guide")
      expect((yield* show({ ref: "runbook", level: "card" })).ref).toBe("notes//runbook")
      expect((yield* show({ ref: "more//guide", level: "card" })).name).toBe("Other guide")
      const missing = failure(yield* Effect.exit(show({ ref: "nope" })))
      expect(missing._tag).toBe("RefNotFound")
      expect(missing.message).toContain("notes//nope, more//nope")
      expect(failure(yield* Effect.exit(show({ ref: "../etc/passwd" })))._tag).toBe("RefInvalid")
    }).pipe(Effect.provide(AkmTest)))

  it.effect("an index that was never built is built first (R-WS-2, as for search)", () =>
    Effect.gen(function* () {
      yield* bundleAdd({ source: folder(notesFiles), name: "notes", cwd: os.tmpdir(), home: os.tmpdir() })
      expect((yield* show({ ref: "runbook", level: "card" })).ref).toBe("notes//runbook")
      expect(yield* (yield* IndexStore).lastIndexed).toBeDefined()
    }).pipe(Effect.provide(AkmTest)))

  it.effect("a file changed since indexing is shown as it is now, marked stale; a vanished one fails with a hint to reindex", () =>
    Effect.gen(function* () {
      const roots = yield* indexedWorkspace({ notes: notesFiles })
      fs.writeFileSync(path.join(roots.notes!, "runbook.md"), "# Runbook\n\nRestart twice.\n")
      const changed = yield* show({ ref: "notes//runbook" })
      expect(changed.stale).toBe(true)
      expect(changed.content).toBe("# Runbook\n\nRestart twice.\n")
      fs.rmSync(path.join(roots.notes!, "runbook.md"))
      const gone = failure(yield* Effect.exit(show({ ref: "notes//runbook" })))
      expect(gone._tag).toBe("NotFound")
      expect(gone.hint).toContain("akm index")
    }).pipe(Effect.provide(AkmTest)))

  it.effect("a file replaced by a link out of its bundle root is refused, never read", () =>
    Effect.gen(function* () {
      const roots = yield* indexedWorkspace({ notes: notesFiles })
      const outside = folder({ "secret.md": `# Outside\n\n${CANARY}\n` })
      const file = path.join(roots.notes!, "runbook.md")
      fs.rmSync(file)
      fs.symlinkSync(path.join(outside, "secret.md"), file)
      const refused = failure(yield* Effect.exit(show({ ref: "notes//runbook" })))
      expect(refused._tag).toBe("ItemUnreadable")
      expect(JSON.stringify(refused)).not.toContain(CANARY)
    }).pipe(Effect.provide(AkmTest)))

  it.effect("env and secret items print key names only, at every level and with every option (R-SHOW-2)", () =>
    Effect.gen(function* () {
      yield* indexedWorkspace({ vault: secretsFiles })
      const env = yield* show({ ref: "vault//env/app" })
      expect(env.valuesHidden).toBe(true)
      expect(env.content).toBe("app: 2 keys (values hidden)\n- PORT\n- API_TOKEN")
      const secret = yield* show({ ref: "vault//secrets/npm-token" })
      expect(secret.content).toContain("value hidden")
      const all = [
        env,
        secret,
        yield* show({ ref: "vault//env/app", lines: "1:9" }),
        yield* show({ ref: "vault//env/app", level: "outline" }),
        yield* show({ ref: "vault//env/app", maxTokens: 3 }),
        yield* show({ ref: "vault//secrets/npm-token", level: "card" })
      ]
      expect(JSON.stringify(all)).not.toContain(CANARY)
      expect(JSON.stringify(all)).not.toContain("3000")
    }).pipe(Effect.provide(AkmTest)))

  it.effect("--no-track records nothing; a read right after a search that returned the item is a select", () =>
    Effect.gen(function* () {
      yield* indexedWorkspace({ notes: notesFiles })
      const usage = yield* UsageLog
      yield* show({ ref: "notes//runbook", track: false })
      expect(yield* usage.events({ ref: "notes//runbook" })).toEqual([])
      yield* usage.recordSearch(trustedText("restart"), ["notes//runbook"], "agent")
      yield* show({ ref: "notes//runbook", source: "agent" })
      expect((yield* usage.events({ ref: "notes//runbook" })).map((e) => [e.kind, e.source])).toEqual([["select", "agent"]])
      // Agent reads teach no utility.
      expect(yield* usage.utility("notes//runbook")).toBeUndefined()
      yield* show({ ref: "notes//runbook" })
      expect(yield* usage.utility("notes//runbook")).toBeGreaterThan(0.5)
    }).pipe(Effect.provide(AkmTest)))
})
