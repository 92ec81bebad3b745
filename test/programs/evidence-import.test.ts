import { afterAll, describe, expect, it } from "@effect/vitest"
import { Effect } from "effect"
import * as fs from "node:fs"
import * as os from "node:os"
import * as path from "node:path"
import { AkmTest } from "../../src/layers/test/AkmTest.js"
import { importTranscripts } from "../../src/programs/evidence/importTranscripts.js"
import { EvidenceStore } from "../../src/services/EvidenceStore.js"
import { indexedWorkspace, notesFiles, removeFolders } from "../support/indexedWorkspace.js"
import { failure } from "./writeFixtures.js"

afterAll(removeFolders)

const fixtures = path.join(import.meta.dirname, "../fixtures/transcripts")
const TOKEN = "ghp_A1b2C3d4E5f6G7h8I9j0K1l2M3n4O5p6Q7r8"

const texts = (rows: ReadonlyArray<{ readonly note: string; readonly query?: string | undefined; readonly origin?: string | undefined }>) => rows.map((r) => `${r.note} ${r.query ?? ""} ${r.origin ?? ""}`).join("\n")

describe("evidence import (spec 06 §1)", () => {
  it.effect("claude-code: a correction, an answered question and a failed tool call per session; refs attached; secrets redacted; a bad line named", () =>
    Effect.gen(function* () {
      yield* indexedWorkspace({ notes: notesFiles })
      const dir = path.join(fixtures, "claude-code/projects")
      const result = yield* importTranscripts({ tool: "claude-code", dir })
      expect(result).toMatchObject({ files: 2, sessions: 2, found: 4, added: 4 })
      const first = path.join(dir, "-home-me-shop/4f1c2d3e-0000-4000-8000-000000000001.jsonl")
      expect(result.problems).toEqual([{ file: first, line: 8, message: expect.stringContaining("not valid JSON") }])
      const byKind = Object.fromEntries(result.rows.filter((r) => r.origin?.startsWith(first)).map((r) => [r.kind, r]))
      expect(byKind["question"]).toMatchObject({ source: "claude-code", ref: "notes//guide", query: "How do I deploy the web app to staging?", origin: `${first}:2`, independenceKey: "claude-code:4f1c2d3e-0000-4000-8000-000000000001", observedAt: "2026-11-30T10:00:01.000Z" })
      expect(byKind["failed-run"]).toMatchObject({ ref: "notes//guide", origin: `${first}:5` })
      expect(byKind["session"]).toMatchObject({ ref: "notes//guide", origin: `${first}:7` })
      expect(byKind["session"]!.note).toContain("the token goes in the vault")
      // R-RED-1: the token was in a tool result and in the agent text the correction quotes.
      expect(texts(result.rows)).not.toContain(TOKEN)
      expect(byKind["failed-run"]!.note).toContain("[redacted:")
      const stored = yield* (yield* EvidenceStore).list({})
      expect(texts(stored)).not.toContain(TOKEN)
      // R-IMP-2: three rows from one session and one from another count as two.
      expect((yield* EvidenceStore).independentCount(stored)).toBe(2)
    }).pipe(Effect.provide(AkmTest)))

  it.effect("re-importing the same transcripts adds nothing", () =>
    Effect.gen(function* () {
      yield* indexedWorkspace({ notes: notesFiles })
      const dir = path.join(fixtures, "codex/sessions")
      const once = yield* importTranscripts({ tool: "codex", dir })
      const twice = yield* importTranscripts({ tool: "codex", dir })
      expect(once.added).toBe(3)
      expect(twice).toMatchObject({ found: 3, added: 0 })
      expect(twice.rows.map((r) => r.id).sort()).toEqual(once.rows.map((r) => r.id).sort())
      expect(yield* (yield* EvidenceStore).list({})).toHaveLength(3)
    }).pipe(Effect.provide(AkmTest)))

  it.effect("codex: injected context and event_msg duplicates are skipped; exit codes decide failures", () =>
    Effect.gen(function* () {
      yield* indexedWorkspace({ notes: notesFiles })
      const dir = path.join(fixtures, "codex/sessions")
      const result = yield* importTranscripts({ tool: "codex", dir })
      const file = path.join(dir, "2026/11/30/rollout-2026-11-30T11-00-00-0199c0de-0000-7000-8000-000000000001.jsonl")
      expect(result.problems).toEqual([{ file, line: 9, message: expect.stringContaining("not valid JSON") }])
      expect(result.rows.map((r) => [r.kind, r.ref, r.origin]).sort()).toEqual([
        ["failed-run", "notes//runbook", `${file}:7`],
        ["question", "notes//runbook", `${file}:3`],
        ["session", "notes//runbook", `${file}:8`]
      ])
      expect(result.rows.every((r) => r.independenceKey === "codex:0199c0de-0000-7000-8000-000000000001")).toBe(true)
      expect(result.rows.find((r) => r.kind === "failed-run")!.note).toContain("LockTimeout")
    }).pipe(Effect.provide(AkmTest)))

  it.effect("opencode: session, message and part files; a truncated message file is named and the rest imported", () =>
    Effect.gen(function* () {
      yield* indexedWorkspace({ notes: notesFiles })
      // The data folder itself (with storage/ inside) is accepted as well as storage/.
      const dir = path.join(fixtures, "opencode")
      const result = yield* importTranscripts({ tool: "opencode", dir })
      expect(result.problems).toEqual([{ file: path.join(dir, "storage/message/ses_4a2b/msg_0004.json"), line: 1, message: expect.stringContaining("not valid JSON") }])
      expect(result.rows.map((r) => [r.kind, r.ref]).sort()).toEqual([["failed-run", "notes//runbook"], ["question", "notes//runbook"], ["session", "notes//runbook"]])
      expect(result.rows.find((r) => r.kind === "failed-run")!.note).toContain("Access denied")
      expect(result.rows.every((r) => r.independenceKey === "opencode:ses_4a2b")).toBe(true)
    }).pipe(Effect.provide(AkmTest)))

  it.effect("refs of bundles that are not configured are not attached", () =>
    Effect.gen(function* () {
      yield* indexedWorkspace({ docs: notesFiles })
      const result = yield* importTranscripts({ tool: "opencode", dir: path.join(fixtures, "opencode/storage") })
      expect(result.rows).toHaveLength(3)
      expect(result.rows.every((r) => r.ref === undefined)).toBe(true)
    }).pipe(Effect.provide(AkmTest)))

  it.effect("--since keeps only newer records; a bad span is a usage error", () =>
    Effect.gen(function* () {
      yield* indexedWorkspace({ notes: notesFiles })
      const dir = path.join(fixtures, "claude-code/projects")
      const later = yield* importTranscripts({ tool: "claude-code", dir, since: "2026-11-30T11:00:00Z" })
      expect(later.rows.map((r) => r.kind)).toEqual(["session"])
      expect(failure(yield* Effect.exit(importTranscripts({ tool: "claude-code", dir, since: "yesterday" })))._tag).toBe("UsageError")
    }).pipe(Effect.provide(AkmTest)))

  it.effect("a missing folder is an error naming it and --dir", () =>
    Effect.gen(function* () {
      const dir = path.join(os.tmpdir(), "akm-no-such-transcripts")
      expect(fs.existsSync(dir)).toBe(false)
      const error = failure(yield* Effect.exit(importTranscripts({ tool: "codex", dir })))
      expect(error._tag).toBe("NotFound")
      expect(error.message).toContain(dir)
      expect(error.hint).toContain("--dir")
    }).pipe(Effect.provide(AkmTest)))
})
