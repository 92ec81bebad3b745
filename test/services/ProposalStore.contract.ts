import { expect, layer as layer_ } from "@effect/vitest"
import { randomUUID } from "node:crypto"
import { Effect, type Layer } from "effect"
import type { FileChange } from "../../src/domain/FileChange.js"
import { sha256Hex, type Proposal } from "../../src/domain/Proposal.js"
import { ProposalStore } from "../../src/services/ProposalStore.js"
import { StateStore } from "../../src/services/StateStore.js"

/**
 * R-ARCH-5: every ProposalStore layer passes this suite. The layer is shared by
 * all cases, so each case works in bundles and recipes of its own.
 */
let counter = 0
const fresh = (label: string): string => `${label}${++counter}`

const proposal = (overrides: Partial<Proposal> & { readonly changes: ReadonlyArray<FileChange> }): Proposal => ({
  id: randomUUID(),
  title: "Remember the staging IP rule",
  recipe: "remember",
  changeClass: "mechanical",
  evidence: [{ kind: "user", id: "remember", hash: sha256Hex("text") }],
  fingerprint: sha256Hex(randomUUID()),
  status: "pending",
  createdAt: "2026-03-01T10:00:00.000Z",
  ...overrides
})

const binary = new Uint8Array([0, 1, 2, 255, 254, 0x80])

export const proposalStoreContract = (name: string, layer: Layer.Layer<ProposalStore | StateStore, unknown>) =>
  layer_(layer)(`ProposalStore contract: ${name}`, (it) => {
    it.effect("a stored proposal comes back byte for byte: text stays text, bytes stay bytes, deletes and modes kept (R-TX-2)", () =>
      Effect.gen(function* () {
        const store = yield* ProposalStore
        const bundle = fresh("bytes")
        const p = proposal({
          evaluation: { verdict: "pass", diagnostics: [], evaluator: "adapter:okf@1", at: "2026-03-01T10:00:00.000Z" },
          changes: [
            { bundle, path: "memories/é-note.md", beforeHash: null, after: "# Nöte\r\n\nline with a BOM-like \uFEFF char\n" },
            { bundle, path: "assets/logo.bin", beforeHash: sha256Hex("old"), after: binary, mode: 0o600 },
            { bundle, path: "old.md", beforeHash: sha256Hex("gone"), delete: true }
          ]
        })
        yield* store.create(p)
        const back = yield* store.get(p.id)
        expect(back).toEqual(p)
        expect(back!.changes[1]!.after).toBeInstanceOf(Uint8Array)
        expect(typeof back!.changes[0]!.after).toBe("string")
        expect(yield* store.get(randomUUID())).toBeUndefined()
      }))

    it.effect("list is newest first with files and their actions, filtered by status, recipe and bundle", () =>
      Effect.gen(function* () {
        const store = yield* ProposalStore
        const bundle = fresh("list")
        const other = fresh("other")
        const recipe = fresh("recipe")
        const a = proposal({ recipe, createdAt: "2026-03-01T10:00:00.000Z", changes: [{ bundle, path: "a.md", beforeHash: null, after: "a" }] })
        const b = proposal({ recipe, createdAt: "2026-03-02T10:00:00.000Z", changes: [{ bundle, path: "b.md", beforeHash: sha256Hex("b"), after: "b2" }, { bundle: other, path: "c.md", beforeHash: sha256Hex("c"), delete: true }] })
        // Same instant as b, stored later: the later insert is newer.
        const c = proposal({ recipe, createdAt: "2026-03-02T10:00:00.000Z", changes: [{ bundle: other, path: "d.md", beforeHash: null, after: "d" }] })
        for (const p of [a, b, c]) yield* store.create(p)
        const listed = yield* store.list({ recipe })
        expect(listed.map((p) => p.id)).toEqual([c.id, b.id, a.id])
        expect(listed[1]).toEqual({
          id: b.id,
          title: b.title,
          recipe,
          status: "pending",
          changeClass: "mechanical",
          createdAt: b.createdAt,
          files: [{ bundle, path: "b.md", action: "update" }, { bundle: other, path: "c.md", action: "delete" }]
        })
        expect((yield* store.list({ recipe, bundle })).map((p) => p.id)).toEqual([b.id, a.id])
        expect((yield* store.list({ recipe, limit: 1 })).map((p) => p.id)).toEqual([c.id])
        yield* store.decide(a.id, { from: ["pending"], to: "rejected", at: "2026-03-03T00:00:00.000Z", by: "user", reason: "duplicate" })
        expect((yield* store.list({ recipe, status: "pending" })).map((p) => p.id)).toEqual([c.id, b.id])
        expect((yield* store.list({ recipe, status: "rejected" })).map((p) => p.id)).toEqual([a.id])
      }))

    it.effect("decide moves only from the allowed statuses and records the outcome, the applied files and an event", () =>
      Effect.gen(function* () {
        const store = yield* ProposalStore
        const events = yield* StateStore
        const bundle = fresh("decide")
        const p = proposal({ changes: [{ bundle, path: "x.md", beforeHash: sha256Hex("x"), after: "x2" }, { bundle, path: "new.md", beforeHash: null, after: "n" }] })
        yield* store.create(p)
        expect(yield* store.applied(p.id)).toBeUndefined()
        const applied = [
          { bundle, path: "x.md", beforeHash: sha256Hex("x"), afterHash: sha256Hex("x2"), backup: sha256Hex("x") },
          { bundle, path: "new.md", beforeHash: null, afterHash: sha256Hex("n") }
        ]
        const at = "2026-03-04T00:00:00.000Z"
        expect(yield* store.decide(p.id, { from: ["pending"], to: "accepted", at, by: "user", outcome: { changes: applied, gitCommits: [{ bundle, sha: "abc" }] } })).toEqual({ moved: true, status: "pending" })
        // A second accept (another process) finds it accepted and moves nothing.
        expect(yield* store.decide(p.id, { from: ["pending"], to: "accepted", at, by: "user" })).toEqual({ moved: false, status: "accepted" })
        expect(yield* store.decide(randomUUID(), { from: ["pending"], to: "accepted", at, by: "user" })).toEqual({ moved: false, status: undefined })
        const back = yield* store.get(p.id)
        expect(back).toMatchObject({ status: "accepted", decidedAt: at, decidedBy: "user", backup: [{ bundle, path: "x.md", hash: sha256Hex("x") }] })
        expect(yield* store.applied(p.id)).toEqual(applied)
        yield* store.refused(p.id, "2026-03-05T00:00:00.000Z", { tag: "StaleBeforeHash", message: "x.md changed", path: "x.md" })
        yield* store.decide(p.id, { from: ["accepted"], to: "reverted", at: "2026-03-06T00:00:00.000Z", by: "user", outcome: { changes: [] } })
        const outcomes = yield* store.outcomes(p.id)
        expect(outcomes.map((o) => o.kind)).toEqual(["accepted", "refused", "reverted"])
        expect(outcomes[0]).toMatchObject({ at, changes: applied, gitCommits: [{ bundle, sha: "abc" }] })
        expect(outcomes[1]).toMatchObject({ error: { tag: "StaleBeforeHash", path: "x.md" } })
        // The revert keeps the accepted files for the record.
        expect(yield* store.applied(p.id)).toEqual(applied)
        const log = yield* events.events({ subject: p.id })
        expect(log.map((e) => e.kind)).toEqual(["proposal.created", "proposal.accepted", "proposal.refused", "proposal.reverted"])
      }))

    it.effect("short ids resolve by prefix", () =>
      Effect.gen(function* () {
        const store = yield* ProposalStore
        const bundle = fresh("short")
        const p = proposal({ changes: [{ bundle, path: "s.md", beforeHash: null, after: "s" }] })
        yield* store.create(p)
        expect(yield* store.idsStartingWith(p.id.slice(0, 8), 10)).toEqual([p.id])
        expect(yield* store.idsStartingWith(p.id, 10)).toEqual([p.id])
        expect(yield* store.idsStartingWith("zzzzzzzz", 10)).toEqual([])
      }))

    it.effect("expire moves old pending proposals only; fingerprints find earlier work", () =>
      Effect.gen(function* () {
        const store = yield* ProposalStore
        const bundle = fresh("expire")
        const fingerprint = sha256Hex(bundle)
        const old = proposal({ fingerprint, createdAt: "2000-01-01T00:00:00.000Z", changes: [{ bundle, path: "o.md", beforeHash: null, after: "o" }] })
        const oldDecided = proposal({ createdAt: "2000-01-01T00:00:00.000Z", changes: [{ bundle, path: "d.md", beforeHash: null, after: "d" }] })
        const recent = proposal({ fingerprint, createdAt: "2000-06-01T00:00:00.000Z", changes: [{ bundle, path: "r.md", beforeHash: null, after: "r" }] })
        for (const p of [old, oldDecided, recent]) yield* store.create(p)
        yield* store.decide(oldDecided.id, { from: ["pending"], to: "rejected", at: "2000-01-02T00:00:00.000Z", by: "user", reason: "no" })
        expect(yield* store.expire("2000-03-01T00:00:00.000Z", "2000-03-01T00:00:00.000Z")).toEqual([old.id])
        expect((yield* store.get(old.id))?.status).toBe("expired")
        expect((yield* store.get(oldDecided.id))?.status).toBe("rejected")
        expect((yield* store.withFingerprint(fingerprint)).map((p) => [p.id, p.status])).toEqual([[recent.id, "pending"], [old.id, "expired"]])
      }))

    it.effect("renameBundle rewrites the bundle of changes and applied files", () =>
      Effect.gen(function* () {
        const store = yield* ProposalStore
        const from = fresh("from")
        const to = fresh("to")
        const p = proposal({ changes: [{ bundle: from, path: "a.md", beforeHash: null, after: "a" }] })
        yield* store.create(p)
        yield* store.decide(p.id, { from: ["pending"], to: "accepted", at: "2026-01-01T00:00:00.000Z", by: "user", outcome: { changes: [{ bundle: from, path: "a.md", beforeHash: null, afterHash: sha256Hex("a") }] } })
        yield* store.renameBundle(from, to)
        expect((yield* store.get(p.id))!.changes.map((c) => c.bundle)).toEqual([to])
        expect((yield* store.applied(p.id))!.map((c) => c.bundle)).toEqual([to])
        expect((yield* store.list({ bundle: from })).length).toBe(0)
      }))
  })
