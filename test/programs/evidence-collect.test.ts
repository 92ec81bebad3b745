import { afterAll, describe, expect, it } from "@effect/vitest"
import { Effect, TestClock } from "effect"
import * as fs from "node:fs"
import * as path from "node:path"
import { AkmTest } from "../../src/layers/test/AkmTest.js"
import { bundleAdd } from "../../src/programs/bundle/add.js"
import { bundleRemove } from "../../src/programs/bundle/remove.js"
import { bundleRename } from "../../src/programs/bundle/rename.js"
import { addEvidence } from "../../src/programs/evidence/add.js"
import { collectEvidence, collectEvidenceReport } from "../../src/programs/evidence/collect.js"
import { dismissEvidence } from "../../src/programs/evidence/dismiss.js"
import { lintEvidence } from "../../src/programs/evidence/fromLint.js"
import { usageEvidence } from "../../src/programs/evidence/fromUsage.js"
import { listEvidence } from "../../src/programs/evidence/list.js"
import { feedback } from "../../src/programs/feedback.js"
import { indexBundles } from "../../src/programs/indexBundles.js"
import { recordFailureOccurrence } from "../../src/programs/ledger/record.js"
import { EvidenceStore } from "../../src/services/EvidenceStore.js"
import type { Evidence } from "../../src/domain/Evidence.js"
import type { CollectOptions } from "../../src/programs/evidence/collect.js"
import type { StateStoreError } from "../../src/services/StateStore.js"
import type { UsageEvent } from "../../src/services/UsageLog.js"
import { indexedWorkspace, notesFiles, removeFolders } from "../support/indexedWorkspace.js"
import { caller, failure, folder } from "./writeFixtures.js"

afterAll(removeFolders)

// The signature the improve run codes against: it fails only when state.db does (lint and ledger problems are reported, not raised).
const pinned: (options: CollectOptions) => Effect.Effect<ReadonlyArray<Evidence>, StateStoreError, unknown> = collectEvidence
void pinned

describe("evidence sources (spec 06 §1)", () => {
  it.effect("a negative feedback with a reason is evidence at once; collecting again adds nothing; positive feedback is none", () =>
    Effect.gen(function* () {
      yield* indexedWorkspace({ notes: notesFiles })
      const fb = yield* feedback({ ref: "notes//guide", polarity: "negative", reason: "step 3 uses the old flag" })
      yield* feedback({ ref: "notes//runbook", polarity: "positive" })
      const listed = yield* listEvidence({})
      expect(listed.rows).toMatchObject([{ kind: "negative-feedback", source: "feedback", ref: "notes//guide", note: "step 3 uses the old flag", origin: `feedback:${fb.id}`, status: "open" }])
      const report = yield* collectEvidenceReport({ bundle: "notes" })
      expect(report.added).toBe(0)
      expect(report.rows.map((r) => r.id)).toEqual(listed.rows.map((r) => r.id))
      expect((yield* collectEvidence({ ref: "notes//guide" })).map((r) => r.kind)).toEqual(["negative-feedback"])
      expect((yield* listEvidence({ ref: "guide" })).rows.map((r) => r.id)).toEqual(listed.rows.map((r) => r.id))
      expect(yield* collectEvidence({ ref: "notes//runbook" })).toEqual([])
    }).pipe(Effect.provide(AkmTest)))

  it.effect("R-IMP-2: ten complaints by one caller on one day count once; another day counts again", () =>
    Effect.gen(function* () {
      yield* indexedWorkspace({ notes: notesFiles })
      yield* TestClock.setTime(Date.parse("2026-11-30T09:00:00Z"))
      for (let i = 0; i < 10; i++) yield* feedback({ ref: "notes//guide", polarity: "negative", reason: `outdated, take ${i}`, source: "agent" })
      const store = yield* EvidenceStore
      expect(store.independentCount(yield* store.list({ ref: "notes//guide" }))).toBe(1)
      yield* TestClock.adjust("1 day")
      yield* feedback({ ref: "notes//guide", polarity: "negative", reason: "still outdated", source: "agent" })
      const rows = yield* store.list({ ref: "notes//guide" })
      expect(rows).toHaveLength(11)
      expect(store.independentCount(rows)).toBe(2)
    }).pipe(Effect.provide(AkmTest)))

  it.effect("--dry-run derives the rows and stores nothing", () =>
    Effect.gen(function* () {
      yield* indexedWorkspace({ notes: { ...notesFiles, "broken.md": "---\ntype: guide\ntitle: Broken\n---\n# Broken\n\nSee [the missing page](missing.md).\n" } })
      const dry = yield* collectEvidenceReport({ dryRun: true })
      expect(dry.rows.map((r) => [r.kind, r.ref])).toEqual([["broken-link", "notes//broken"]])
      expect(dry.added).toBe(1)
      expect(yield* (yield* EvidenceStore).list({})).toEqual([])
      const real = yield* collectEvidenceReport({})
      expect(real.rows.map((r) => r.id)).toEqual(dry.rows.map((r) => r.id))
    }).pipe(Effect.provide(AkmTest)))

  it.effect("lint: a broken link is evidence until it is fixed, then the row is dismissed", () =>
    Effect.gen(function* () {
      const roots = yield* indexedWorkspace({ notes: { ...notesFiles, "broken.md": "---\ntype: guide\ntitle: Broken\n---\n# Broken\n\nSee [the missing page](missing.md).\n" } })
      const [row] = yield* collectEvidence({ bundle: "notes" })
      expect(row).toMatchObject({ kind: "broken-link", source: "lint", ref: "notes//broken", origin: "broken.md:7 (dangling-link)" })
      expect(row!.note).toContain("dangling-link")
      expect((yield* collectEvidenceReport({ bundle: "notes" })).added).toBe(0)
      fs.writeFileSync(path.join(roots["notes"]!, "broken.md"), "---\ntype: guide\ntitle: Broken\n---\n# Broken\n\nSee [the runbook](runbook.md).\n")
      const after = yield* collectEvidenceReport({ bundle: "notes" })
      expect(after).toMatchObject({ rows: [], resolved: 1 })
      expect((yield* (yield* EvidenceStore).get([row!.id]))[0]!.status).toBe("dismissed")
    }).pipe(Effect.provide(AkmTest)))

  it("lint: errors are lint-error, broken references broken-link, warnings and findings without an item nothing", () => {
    const rows = lintEvidence({
      ok: false,
      counts: { error: 2, warning: 2, info: 1 },
      bundles: [{
        bundle: "kb",
        adapter: "akm",
        root: "/kb",
        items: 3,
        counts: { error: 2, warning: 2, info: 1 },
        files: [
          { path: "a.md", diagnostics: [{ code: "invalid-frontmatter", severity: "error", line: 2, message: "bad YAML", ref: "kb//a" }, { code: "missing-description", severity: "warning", message: "no description", ref: "kb//a" }] },
          { path: "b.md", diagnostics: [{ code: "broken-ref", severity: "warning", line: 4, message: "`xrefs` names nothing", ref: "kb//b" }, { code: "placeholder-stub", severity: "info", message: "stub", ref: "kb//b" }] },
          { path: "manifest.json", diagnostics: [{ code: "invalid-manifest", severity: "error", message: "not JSON" }] }
        ]
      }]
    })
    expect(rows.map((r) => [r.kind, r.ref, r.origin])).toEqual([["lint-error", "kb//a", "a.md:2 (invalid-frontmatter)"], ["broken-link", "kb//b", "b.md:4 (broken-ref)"]])
  })

  it.effect("ledger: a failure sighted on two dates is recurring-failure evidence, one row per independent sighting", () =>
    Effect.gen(function* () {
      const root = folder({ "README.md": "# app\n", ".ai/config.json": "{}\n" })
      yield* bundleAdd({ source: root, name: "app", adapter: "project", writable: true, ...caller })
      const fields = { module: "src/db", operation: "migrate src/db/0042.sql:17", error_class: "LockTimeout", symptom: "migration hung on the orders lock" }
      const once = yield* recordFailureOccurrence({ bundle: "app", fields: { ...fields, trigger: "npm run migrate", root_cause: "long read", fix: "lock_timeout" }, source: "self-report", date: "2026-11-20" })
      expect(yield* collectEvidence({ bundle: "app" })).toEqual([])
      yield* recordFailureOccurrence({ bundle: "app", fields, source: "ci", date: "2026-11-28" })
      yield* recordFailureOccurrence({ bundle: "app", fields, source: "ci", date: "2026-11-28" })
      const rows = yield* collectEvidence({ bundle: "app" })
      const ref = `app//.ai/ledger/failure/${once.id}`
      expect(rows.map((r) => [r.kind, r.ref, r.independenceKey]).sort()).toEqual([
        ["recurring-failure", ref, "ledger/2026-11-20/self-report"],
        ["recurring-failure", ref, "ledger/2026-11-28/ci"]
      ])
      expect(rows[0]!.note).toContain("migration hung on the orders lock")
      expect((yield* EvidenceStore).independentCount(rows)).toBe(2)
    }).pipe(Effect.provide(AkmTest)))

  it("failed searches: no results, or a read of an item the results lacked; a chosen result, audits and late reads are not", () => {
    let id = 0
    const at = (minute: number) => new Date(Date.parse("2026-11-30T10:00:00Z") + minute * 60_000).toISOString()
    const search = (minute: number, query: string, refs: Array<string>, source: UsageEvent["source"] = "user"): UsageEvent => ({ id: ++id, at: at(minute), kind: "search", query, refs, source })
    const read = (minute: number, kind: "show" | "select", ref: string, source: UsageEvent["source"] = "user"): UsageEvent => ({ id: ++id, at: at(minute), kind, ref, source })
    const rows = usageEvidence([
      search(0, "rotate the api key", []),
      search(1, "deploy staging", ["notes//runbook"]),
      read(2, "show", "notes//guide"),
      search(3, "restart api", ["notes//runbook"]),
      read(4, "select", "notes//runbook"),
      search(5, "nothing here", [], "audit"),
      search(6, "backup database", ["notes//runbook"]),
      read(60, "show", "notes//backup"),
      search(61, "agent query", [], "agent"),
      read(62, "show", "notes//guide", "agent")
    ])
    expect(rows.map((r) => [r.query, r.ref, r.independenceKey])).toEqual([
      ["rotate the api key", undefined, "search/user/2026-11-30"],
      ["deploy staging", "notes//guide", "search/user/2026-11-30"],
      ["agent query", "notes//guide", "search/agent/2026-11-30"]
    ])
    expect(rows[1]!.note).toBe("searched \"deploy staging\": notes//guide was not among the 1 results and was opened next")
  })

  it.effect("evidence about an item that no longer exists is kept and flagged, never a crash", () =>
    Effect.gen(function* () {
      const roots = yield* indexedWorkspace({ notes: notesFiles, other: { "index.md": "# Other\n", "page.md": "---\ntype: guide\n---\n# Page\n" } })
      yield* addEvidence({ kind: "negative-feedback", ref: "notes//runbook", note: "restart is wrong" })
      yield* addEvidence({ kind: "negative-feedback", ref: "other//page", note: "page is wrong" })
      yield* addEvidence({ kind: "question", note: "how do I rotate keys?", query: "how do I rotate keys?" })
      fs.rmSync(path.join(roots["notes"]!, "runbook.md"))
      yield* indexBundles({ full: false, dryRun: false })
      yield* bundleRemove("other")
      const listed = yield* listEvidence({})
      const flags = Object.fromEntries(listed.rows.map((r) => [r.ref ?? r.kind, r.missing ?? "ok"]))
      expect(flags).toEqual({ "notes//runbook": "the item no longer exists", "other//page": "bundle 'other' is no longer configured", question: "ok" })
      // Collecting still works; the guide's link to the deleted runbook is now broken-link evidence of its own.
      expect((yield* collectEvidence({})).map((r) => [r.kind, r.ref ?? "-"]).sort()).toEqual([
        ["broken-link", "notes//guide"], ["negative-feedback", "notes//runbook"], ["negative-feedback", "other//page"], ["question", "-"]
      ])
    }).pipe(Effect.provide(AkmTest)))

  it.effect("manual add: kinds are checked, short refs resolve, the same row twice is one; dismiss by prefix", () =>
    Effect.gen(function* () {
      yield* indexedWorkspace({ notes: notesFiles })
      expect(failure(yield* Effect.exit(addEvidence({ kind: "popular", ref: "guide", note: "x" })))._tag).toBe("UsageError")
      expect(failure(yield* Effect.exit(addEvidence({ kind: "contradiction", ref: "guide", note: "  " })))._tag).toBe("UsageError")
      const a = yield* addEvidence({ kind: "contradiction", ref: "guide", note: "says port 80, the runbook says 8080" })
      const b = yield* addEvidence({ kind: "contradiction", ref: "notes//guide", note: "says port 80, the runbook says 8080" })
      expect(a).toMatchObject({ ref: "notes//guide", source: "manual" })
      expect(b.id).toBe(a.id)
      expect(failure(yield* Effect.exit(dismissEvidence("abc")))._tag).toBe("UsageError")
      expect(failure(yield* Effect.exit(dismissEvidence("ffffffff")))._tag).toBe("NotFound")
      expect((yield* dismissEvidence(a.id.slice(0, 6))).status).toBe("dismissed")
      expect(yield* collectEvidence({ ref: "notes//guide" })).toEqual([])
    }).pipe(Effect.provide(AkmTest)))

  it.effect("a bundle rename moves its evidence; collecting afterwards adds no duplicate", () =>
    Effect.gen(function* () {
      yield* indexedWorkspace({ notes: notesFiles })
      yield* feedback({ ref: "notes//guide", polarity: "negative", reason: "outdated" })
      yield* bundleRename("notes", "team")
      const rows = yield* (yield* EvidenceStore).list({})
      expect(rows.map((r) => r.ref)).toEqual(["team//guide"])
      expect((yield* collectEvidenceReport({})).added).toBe(0)
    }).pipe(Effect.provide(AkmTest)))
})
