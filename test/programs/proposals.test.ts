import { describe, expect, it } from "@effect/vitest"
import { randomUUID } from "node:crypto"
import * as fs from "node:fs"
import * as path from "node:path"
import { Effect, TestClock } from "effect"
import { sha256Hex } from "../../src/domain/Proposal.js"
import { AkmTest } from "../../src/layers/test/AkmTest.js"
import { bundleAdd } from "../../src/programs/bundle/add.js"
import { configSet } from "../../src/programs/config.js"
import { proposalAccept } from "../../src/programs/proposals/accept.js"
import { proposeAndApply } from "../../src/programs/proposals/direct.js"
import { proposalDiff } from "../../src/programs/proposals/diff.js"
import { proposalList } from "../../src/programs/proposals/list.js"
import { findProposal } from "../../src/programs/proposals/lookup.js"
import { proposalNew } from "../../src/programs/proposals/new.js"
import { propose } from "../../src/programs/proposals/propose.js"
import { recoverWrites } from "../../src/programs/proposals/recover.js"
import { proposalReject } from "../../src/programs/proposals/reject.js"
import { proposalRevert } from "../../src/programs/proposals/revert.js"
import { proposalShow } from "../../src/programs/proposals/show.js"
import { remember } from "../../src/programs/remember.js"
import { IndexStore } from "../../src/services/IndexStore.js"
import { ProposalStore } from "../../src/services/ProposalStore.js"
import { Transaction } from "../../src/services/Transaction.js"
import { caller, failure, folder, mine, notesWithGuide } from "./writeFixtures.js"

describe("proposals", () => {
  it.effect("remember writes a memory through an accepted proposal that revert undoes", () =>
    Effect.gen(function* () {
      const root = yield* mine
      const result = yield* remember({ text: "Staging refuses CI unless the runner IP is allow-listed. Add it in the console.", tags: ["staging", "ci"] })
      expect(result).toMatchObject({ status: "accepted", bundle: "mine", ref: "mine//memories/staging-refuses-ci-unless-the-runner-ip-is-allow-listed", files: ["memories/staging-refuses-ci-unless-the-runner-ip-is-allow-listed.md"] })
      const written = fs.readFileSync(result.path, "utf8")
      expect(written).toContain("description: Staging refuses CI unless the runner IP is allow-listed.\n")
      expect(written).toContain("tags:")
      expect(written).toContain("Add it in the console.")
      expect(path.dirname(result.path)).toBe(path.join(root, "memories"))
      // The index rows of the changed bundle were refreshed once the files were final.
      const index = yield* IndexStore
      expect((yield* index.resolve(result.ref!))?.path).toBe(result.path)

      const listed = yield* proposalList({})
      expect(listed.proposals).toEqual([{
        id: result.id,
        title: `Remember: ${result.title.replace(/^Remember: /, "")}`,
        recipe: "remember",
        status: "accepted",
        changeClass: "mechanical",
        createdAt: expect.any(String),
        files: [{ bundle: "mine", path: result.files[0], action: "create" }]
      }])
      const shown = yield* proposalShow(result.id.slice(0, 8))
      expect(shown).toMatchObject({ id: result.id, status: "accepted", decidedBy: "policy", evaluation: { verdict: "pass" }, evidence: [{ kind: "user", id: "remember" }] })
      expect(shown.files[0]!.diff).toContain("--- /dev/null")
      expect(shown.outcomes.map((o) => o.kind)).toEqual(["accepted"])

      const reverted = yield* proposalRevert(result.id)
      expect(reverted.status).toBe("reverted")
      expect(fs.existsSync(result.path)).toBe(false)
      expect(yield* index.resolve(result.ref!)).toBeUndefined()
      expect((yield* findProposal(result.id)).status).toBe("reverted")
      // A reverted proposal is final.
      expect(failure(yield* Effect.exit(proposalRevert(result.id)))._tag).toBe("Conflict")
    }).pipe(Effect.provide(AkmTest)))

  it.effect("with policy.autoApply [] a direct command leaves a pending proposal; accept applies it exactly as stored", () =>
    Effect.gen(function* () {
      const root = yield* mine
      yield* configSet("policy.autoApply", "[]")
      const result = yield* remember({ text: "Review me first" })
      expect(result.status).toBe("pending")
      expect(result.hint).toContain("akm proposal accept")
      expect(fs.existsSync(result.path)).toBe(false)
      const stored = yield* findProposal(result.id)
      const accepted = yield* proposalAccept(result.id)
      expect(accepted).toMatchObject({ status: "accepted", changes: [{ bundle: "mine", beforeHash: null, afterHash: sha256Hex(stored.changes[0]!.after!) }] })
      expect(fs.readFileSync(path.join(root, result.files[0]!), "utf8")).toBe(stored.changes[0]!.after)
      expect(failure(yield* Effect.exit(proposalAccept(result.id)))).toMatchObject({ _tag: "Conflict", message: expect.stringContaining("is accepted, not pending") })
      const bad = failure(yield* Effect.exit(remember({ text: "x" }).pipe(Effect.zipRight(configSet("policy.autoApply", "mechanical")), Effect.zipRight(remember({ text: "y" })))))
      expect(bad).toMatchObject({ _tag: "ConfigInvalid", path: "policy.autoApply" })
    }).pipe(Effect.provide(AkmTest)))

  it.effect("a file edited after the proposal was made fails accept naming the file; the proposal becomes failed", () =>
    Effect.gen(function* () {
      const root = yield* mine
      fs.mkdirSync(path.join(root, "knowledge"), { recursive: true })
      fs.writeFileSync(path.join(root, "knowledge/setup.md"), "---\ndescription: Setup\n---\n# Setup\n\nold\n")
      const draft = folder({ "draft.md": "---\ndescription: Setup\n---\n# Setup\n\nnew\n" })
      const made = yield* proposalNew({ bundle: "mine", files: [`knowledge/setup.md=@${path.join(draft, "draft.md")}`], title: "Rewrite setup", ...caller })
      expect(made).toMatchObject({ status: "pending", recipe: "manual", changeClass: "semantic", files: [{ path: "knowledge/setup.md", action: "update" }] })
      expect(made.files[0]!.diff).toContain("-old\n+new\n")
      fs.writeFileSync(path.join(root, "knowledge/setup.md"), "edited by hand\n")
      const error = failure(yield* Effect.exit(proposalAccept(made.id)))
      expect(error).toMatchObject({ _tag: "StaleBeforeHash", path: "knowledge/setup.md" })
      expect(error.message).toContain("knowledge/setup.md")
      expect(fs.readFileSync(path.join(root, "knowledge/setup.md"), "utf8")).toBe("edited by hand\n")
      const failed = yield* proposalShow(made.id)
      expect(failed).toMatchObject({ status: "failed", reason: expect.stringContaining("knowledge/setup.md") })
      expect(failed.outcomes).toMatchObject([{ kind: "failed", error: { tag: "StaleBeforeHash", path: "knowledge/setup.md" } }])
      expect(error.hint).toContain(`akm proposal refresh ${made.id.slice(0, 8)}`)
      expect(failure(yield* Effect.exit(proposalAccept(made.id)))).toMatchObject({ _tag: "Conflict", hint: expect.stringContaining("akm proposal refresh") })
    }).pipe(Effect.provide(AkmTest)))

  it.effect("revert refuses naming a file edited after accept, and the proposal stays accepted", () =>
    Effect.gen(function* () {
      yield* mine
      const result = yield* remember({ text: "Keep this" })
      fs.appendFileSync(result.path, "edited\n")
      const error = failure(yield* Effect.exit(proposalRevert(result.id)))
      expect(error).toMatchObject({ _tag: "StaleBeforeHash", path: result.files[0] })
      expect(fs.readFileSync(result.path, "utf8")).toContain("edited\n")
      const shown = yield* proposalShow(result.id)
      expect(shown.status).toBe("accepted")
      expect(shown.outcomes.map((o) => o.kind)).toEqual(["accepted", "refused"])
    }).pipe(Effect.provide(AkmTest)))

  it.effect("an update is reverted to the previous bytes, from the backup", () =>
    Effect.gen(function* () {
      const root = yield* mine
      const original = "---\ndescription: Setup\n---\n# Setup\n\nold\n"
      fs.mkdirSync(path.join(root, "knowledge"), { recursive: true })
      fs.writeFileSync(path.join(root, "knowledge/setup.md"), original)
      const draft = folder({ "draft.md": "---\ndescription: Setup\n---\n# Setup\n\nnew\n" })
      const made = yield* proposalNew({ bundle: "mine", files: [`knowledge/setup.md=@${path.join(draft, "draft.md")}`], title: "Rewrite setup", ...caller })
      yield* proposalAccept(made.id.slice(0, 8))
      expect(fs.readFileSync(path.join(root, "knowledge/setup.md"), "utf8")).toContain("new")
      expect((yield* findProposal(made.id)).backup).toEqual([{ bundle: "mine", path: "knowledge/setup.md", hash: sha256Hex(original) }])
      // After accept the diff comes from the backup, not the (changed) file.
      expect((yield* proposalDiff(made.id)).diff).toContain("-old\n+new\n")
      yield* proposalRevert(made.id)
      expect(fs.readFileSync(path.join(root, "knowledge/setup.md"), "utf8")).toBe(original)
    }).pipe(Effect.provide(AkmTest)))

  it.effect("reject needs a reason and closes a pending proposal without touching files", () =>
    Effect.gen(function* () {
      yield* mine
      yield* configSet("policy.autoApply", "[]")
      const result = yield* remember({ text: "Maybe not" })
      expect(failure(yield* Effect.exit(proposalReject(result.id, "  ")))._tag).toBe("UsageError")
      expect(yield* proposalReject(result.id, "duplicate of an older note")).toMatchObject({ status: "rejected", reason: "duplicate of an older note" })
      expect(yield* findProposal(result.id)).toMatchObject({ status: "rejected", reason: "duplicate of an older note", decidedBy: "user" })
      expect(fs.existsSync(result.path)).toBe(false)
      expect(failure(yield* Effect.exit(proposalAccept(result.id)))._tag).toBe("Conflict")
    }).pipe(Effect.provide(AkmTest)))

  it.effect("an evaluation error blocks accept", () =>
    Effect.gen(function* () {
      yield* mine
      const draft = folder({ "SKILL.md": "---\nname: other-name\ndescription: Does things. Use when needed.\n---\n# X\n" })
      const made = yield* proposalNew({ bundle: "mine", files: [`skills/pdf/SKILL.md=@${path.join(draft, "SKILL.md")}`], title: "Add a skill", ...caller })
      expect(made.evaluation).toMatchObject({ verdict: "fail", diagnostics: [expect.objectContaining({ severity: "error", path: "skills/pdf/SKILL.md" })] })
      expect(failure(yield* Effect.exit(proposalAccept(made.id)))).toMatchObject({ _tag: "Conflict", message: expect.stringContaining("does not validate") })
    }).pipe(Effect.provide(AkmTest)))

  it.effect("a direct-apply change that does not validate fails at once and is recorded as failed", () =>
    Effect.gen(function* () {
      const root = yield* mine
      const after = "---\nname: other-name\ndescription: Does things. Use when needed.\n---\n# X\n"
      const error = failure(yield* Effect.exit(proposeAndApply({ title: "bad skill", recipe: "create", changeClass: "mechanical", changes: [{ bundle: "mine", path: "skills/pdf/SKILL.md", beforeHash: null, after }], bundle: "mine", root })))
      expect(error).toMatchObject({ _tag: "ValidationFailed", diagnostics: [expect.objectContaining({ path: "skills/pdf/SKILL.md" })] })
      expect(fs.existsSync(path.join(root, "skills/pdf/SKILL.md"))).toBe(false)
      const [listed] = (yield* proposalList({})).proposals
      expect(listed).toMatchObject({ status: "failed", recipe: "create" })
    }).pipe(Effect.provide(AkmTest)))

  it.effect("list is newest first and filters by status, recipe and bundle; old pending proposals expire", () =>
    Effect.gen(function* () {
      yield* mine
      yield* bundleAdd({ source: notesWithGuide(), name: "notes", ...caller })
      yield* configSet("policy.autoApply", "[]")
      const a = yield* remember({ text: "first" })
      yield* TestClock.adjust("1 second")
      const b = yield* remember({ text: "second", bundle: "notes" })
      yield* TestClock.adjust("1 second")
      const c = yield* remember({ text: "third" })
      expect((yield* proposalList({})).proposals.map((p) => p.id)).toEqual([c.id, b.id, a.id])
      expect((yield* proposalList({ bundle: "notes" })).proposals.map((p) => p.id)).toEqual([b.id])
      yield* proposalReject(a.id, "no")
      expect((yield* proposalList({ status: "pending" })).proposals.map((p) => p.id)).toEqual([c.id, b.id])
      expect((yield* proposalList({ recipe: "lint-fix" })).proposals).toEqual([])
      yield* TestClock.adjust("91 days")
      expect((yield* proposalList({})).proposals.map((p) => [p.id, p.status])).toEqual([[c.id, "expired"], [b.id, "expired"], [a.id, "rejected"]])
    }).pipe(Effect.provide(AkmTest)))

  it.effect("short ids: 8 characters resolve, fewer are a usage error, a shared prefix lists the matches, unknown is not found", () =>
    Effect.gen(function* () {
      const store = yield* ProposalStore
      const base = { title: "t", recipe: "manual", changeClass: "semantic" as const, evidence: [], fingerprint: "f", status: "pending" as const, createdAt: "2026-01-01T00:00:00.000Z", changes: [{ bundle: "b", path: "a.md", beforeHash: null, after: "a" }] }
      yield* store.create({ ...base, id: "abcdef12-0000-4000-8000-000000000001" })
      yield* store.create({ ...base, id: "abcdef12-0000-4000-8000-000000000002" })
      yield* store.create({ ...base, id: "12345678-0000-4000-8000-000000000003" })
      expect((yield* findProposal("12345678")).id).toBe("12345678-0000-4000-8000-000000000003")
      expect((yield* findProposal("ABCDEF12-0000-4000-8000-000000000002")).id).toBe("abcdef12-0000-4000-8000-000000000002")
      const ambiguous = failure(yield* Effect.exit(findProposal("abcdef12")))
      expect(ambiguous).toMatchObject({ _tag: "UsageError", message: expect.stringContaining("abcdef12-0000-4000-8000-000000000001, abcdef12-0000-4000-8000-000000000002") })
      expect(failure(yield* Effect.exit(findProposal("1234")))._tag).toBe("UsageError")
      expect(failure(yield* Effect.exit(findProposal(randomUUID())))._tag).toBe("NotFound")
    }).pipe(Effect.provide(AkmTest)))

  it.effect("recovery completes the record of an accept (or revert) whose journal the engine finished", () =>
    Effect.gen(function* () {
      yield* mine
      const { proposal } = yield* propose({ title: "x", recipe: "manual", changeClass: "semantic", changes: [{ bundle: "mine", path: "knowledge/x.md", beforeHash: null, after: "---\ndescription: X\n---\n# X\n" }] })
      const real = yield* Transaction
      const changes = [{ bundle: "mine", path: "knowledge/x.md", beforeHash: null, afterHash: "a".repeat(64) }]
      const acknowledged: Array<string> = []
      const finished = (op: "apply" | "revert") => Transaction.of({
        ...real,
        finished: Effect.succeed([{ id: proposal.id, op, changes }, { id: randomUUID(), op, changes }]),
        acknowledge: (id, o) => Effect.sync(() => void acknowledged.push(`${id}.${o}`))
      })
      yield* recoverWrites().pipe(Effect.provideService(Transaction, finished("apply")))
      const accepted = yield* proposalShow(proposal.id)
      expect(accepted).toMatchObject({ status: "accepted", decidedBy: "recovery", outcomes: [{ kind: "accepted", note: expect.stringContaining("recovery"), changes: [{ path: "knowledge/x.md", beforeHash: null }] }] })
      expect(acknowledged).toHaveLength(2)
      yield* recoverWrites().pipe(Effect.provideService(Transaction, finished("revert")))
      expect((yield* findProposal(proposal.id)).status).toBe("reverted")
    }).pipe(Effect.provide(AkmTest)))

  it.effect("after-bytes in place without the proposal's own journal are stale, not 'found applied' (issue 13 item 2b)", () =>
    Effect.gen(function* () {
      const root = yield* mine
      const after = "---\ndescription: X\n---\n# X\n"
      const { proposal } = yield* propose({ title: "x", recipe: "manual", changeClass: "semantic", changes: [{ bundle: "mine", path: "knowledge/x.md", beforeHash: null, after }] })
      fs.mkdirSync(path.join(root, "knowledge"), { recursive: true })
      fs.writeFileSync(path.join(root, "knowledge/x.md"), after)
      const error = failure(yield* Effect.exit(proposalAccept(proposal.id)))
      expect(error).toMatchObject({ _tag: "StaleBeforeHash", path: "knowledge/x.md" })
      expect((yield* findProposal(proposal.id)).status).toBe("failed")
    }).pipe(Effect.provide(AkmTest)))

  it.effect("read-only bundles take no proposals", () =>
    Effect.gen(function* () {
      yield* bundleAdd({ source: notesWithGuide(), name: "frozen", writable: false, ...caller })
      const error = failure(yield* Effect.exit(remember({ text: "x", bundle: "frozen" })))
      expect(error).toMatchObject({ _tag: "Conflict", message: expect.stringContaining("read-only") })
      expect((yield* proposalList({})).proposals).toEqual([])
    }).pipe(Effect.provide(AkmTest)))
})
