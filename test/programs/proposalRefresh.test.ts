import { describe, expect, it } from "@effect/vitest"
import * as fs from "node:fs"
import * as path from "node:path"
import { Effect } from "effect"
import { sha256Hex } from "../../src/domain/Proposal.js"
import { AkmTest } from "../../src/layers/test/AkmTest.js"
import { proposalAccept } from "../../src/programs/proposals/accept.js"
import { proposalDiff } from "../../src/programs/proposals/diff.js"
import { findProposal } from "../../src/programs/proposals/lookup.js"
import { proposalNew } from "../../src/programs/proposals/new.js"
import { propose } from "../../src/programs/proposals/propose.js"
import { proposalRefresh } from "../../src/programs/proposals/refresh.js"
import { proposalShow } from "../../src/programs/proposals/show.js"
import { caller, failure, folder, mine } from "./writeFixtures.js"

/** `akm proposal refresh` (issue 26 item 2; spec 05 R-TX-1, R-TX-2). */

const lines = (n: number, edit: Record<number, string> = {}): string =>
  `${Array.from({ length: n }, (_, i) => edit[i + 1] ?? `line ${i + 1}`).join("\n")}\n`

/** A bundle file and a pending hand-made proposal that rewrites it. */
const staged = (file: string, before: string, after: string) =>
  Effect.gen(function* () {
    const root = yield* mine
    fs.mkdirSync(path.dirname(path.join(root, file)), { recursive: true })
    fs.writeFileSync(path.join(root, file), before)
    const draft = folder({ "draft.md": after })
    const made = yield* proposalNew({ bundle: "mine", files: [`${file}=@${path.join(draft, "draft.md")}`], title: "Edit notes", ...caller })
    return { root, id: made.id, file: path.join(root, file) }
  })

const body = (text: string) => `---\ndescription: Notes\n---\n# Notes\n\n${text}`

describe("proposal refresh", () => {
  it.effect("a clean merge becomes a new pending proposal that links the old one; its diff shows the merged bytes and accept applies them", () =>
    Effect.gen(function* () {
      const { id, file } = yield* staged("knowledge/notes.md", body(lines(12)), body(lines(12, { 2: "proposal edit" })))
      // Someone else edits a line far from the proposal's.
      fs.writeFileSync(file, body(lines(12, { 11: "upstream edit" })))
      const stale = failure(yield* Effect.exit(proposalAccept(id)))
      expect(stale).toMatchObject({ _tag: "StaleBeforeHash", path: "knowledge/notes.md" })
      expect(stale.hint).toContain(`akm proposal refresh ${id.slice(0, 8)}`)

      const refreshed = yield* proposalRefresh(id)
      expect(refreshed).toMatchObject({ outcome: "refreshed", from: { id }, proposal: { status: "pending" }, files: [{ path: "knowledge/notes.md", result: "merged" }] })
      const next = refreshed.proposal!.id
      expect(next).not.toBe(id)
      const shown = yield* proposalShow(next)
      expect(shown.evidence).toContainEqual(expect.objectContaining({ kind: "refreshed-from", id }))
      expect(shown.evaluation?.verdict).toBe("pass")
      const old = yield* findProposal(id)
      expect(old).toMatchObject({ status: "rejected", decidedBy: "refresh", reason: expect.stringContaining(next.slice(0, 8)) })
      // Never applied without review.
      expect(fs.readFileSync(file, "utf8")).toBe(body(lines(12, { 11: "upstream edit" })))

      const { diff } = yield* proposalDiff(next)
      expect(diff).toContain("-line 2\n+proposal edit\n")
      expect(diff).not.toContain("upstream edit\n+")
      yield* proposalAccept(next)
      expect(fs.readFileSync(file, "utf8")).toBe(body(lines(12, { 2: "proposal edit", 11: "upstream edit" })))
    }).pipe(Effect.provide(AkmTest)))

  it.effect("a conflicting merge stays pending with conflict markers in its diff and cannot be accepted until resolved with --file", () =>
    Effect.gen(function* () {
      const { id, file } = yield* staged("knowledge/notes.md", body(lines(6)), body(lines(6, { 3: "ours" })))
      fs.writeFileSync(file, body(lines(6, { 3: "theirs" })))
      const refreshed = yield* proposalRefresh(id.slice(0, 8))
      expect(refreshed).toMatchObject({ outcome: "conflict", proposal: { status: "pending" }, files: [{ result: "conflict", conflicts: 1 }] })
      const next = refreshed.proposal!.id
      const { diff } = yield* proposalDiff(next)
      expect(diff).toContain(`+<<<<<<< proposal ${id.slice(0, 8)}\n+ours\n+||||||| base`)
      expect(diff).toContain("+=======\n theirs\n+>>>>>>> current\n")
      expect((yield* proposalShow(next)).evaluation).toMatchObject({ verdict: "fail", diagnostics: [expect.objectContaining({ code: "merge-conflict", severity: "error", path: "knowledge/notes.md" })] })
      const refused = failure(yield* Effect.exit(proposalAccept(next)))
      expect(refused).toMatchObject({ _tag: "Conflict", message: expect.stringContaining("merge-conflict") })
      expect(refused.hint).toContain("--file")
      expect(fs.readFileSync(file, "utf8")).toBe(body(lines(6, { 3: "theirs" })))
      // Refreshing again without resolved bytes changes nothing.
      expect(failure(yield* Effect.exit(proposalRefresh(next)))).toMatchObject({ _tag: "Conflict", message: expect.stringContaining("still has merge conflicts") })

      const resolvedDir = folder({ "resolved.md": body(lines(6, { 3: "ours and theirs" })) })
      const resolved = yield* proposalRefresh(next, { files: [`knowledge/notes.md=@${path.join(resolvedDir, "resolved.md")}`], ...caller })
      expect(resolved).toMatchObject({ outcome: "refreshed", files: [{ result: "resolved" }] })
      yield* proposalAccept(resolved.proposal!.id)
      expect(fs.readFileSync(file, "utf8")).toBe(body(lines(6, { 3: "ours and theirs" })))
    }).pipe(Effect.provide(AkmTest)))

  it.effect("a proposal whose base was not kept is refused with that reason", () =>
    Effect.gen(function* () {
      const root = yield* mine
      fs.mkdirSync(path.join(root, "knowledge"), { recursive: true })
      const before = body("old\n")
      fs.writeFileSync(path.join(root, "knowledge/old.md"), before)
      // Made against bytes akm never saw (as an older proposal, from before bases were kept, would be).
      const unseen = body("what it was when the proposal was made\n")
      const { proposal } = yield* propose({ title: "Old", recipe: "manual", changeClass: "semantic", changes: [{ bundle: "mine", path: "knowledge/old.md", beforeHash: sha256Hex(unseen), after: body("new\n") }] })
      const error = failure(yield* Effect.exit(proposalRefresh(proposal.id)))
      expect(error).toMatchObject({ _tag: "Conflict", message: expect.stringContaining("were not kept") })
      expect(error.hint).toContain("make the change again")
      expect((yield* findProposal(proposal.id)).status).toBe("pending")
      expect(fs.readFileSync(path.join(root, "knowledge/old.md"), "utf8")).toBe(before)
      // A proposal improve generated points at its recipe instead.
      const { proposal: generated } = yield* propose({ title: "Revise", recipe: "revise", changeClass: "semantic", evidence: [{ kind: "negative-feedback", id: "e1", ref: "mine//knowledge/old" }], changes: [{ bundle: "mine", path: "knowledge/old.md", beforeHash: sha256Hex(unseen), after: body("newer\n") }] })
      expect(failure(yield* Effect.exit(proposalRefresh(generated.id))).hint).toContain("akm improve --recipe revise --ref mine//knowledge/old --force")
    }).pipe(Effect.provide(AkmTest)))

  it.effect("a file deleted upstream that the proposal edits is a conflict; a create whose path now exists merges from an empty base", () =>
    Effect.gen(function* () {
      const { root, id, file } = yield* staged("knowledge/gone.md", body("a\n"), body("b\n"))
      fs.rmSync(file)
      const refreshed = yield* proposalRefresh(id)
      expect(refreshed).toMatchObject({ outcome: "conflict", files: [{ result: "conflict" }] })
      const { diff } = yield* proposalDiff(refreshed.proposal!.id)
      expect(diff).toContain("+>>>>>>> current (the file was deleted)")
      expect(failure(yield* Effect.exit(proposalAccept(refreshed.proposal!.id)))._tag).toBe("Conflict")
      expect(fs.existsSync(file)).toBe(false)

      // Both sides created the same file with the same bytes: nothing is left to propose.
      const same = body("same\n")
      const { proposal: create } = yield* propose({ title: "Create", recipe: "manual", changeClass: "semantic", changes: [{ bundle: "mine", path: "knowledge/new.md", beforeHash: null, after: same }] })
      fs.writeFileSync(path.join(root, "knowledge/new.md"), same)
      expect(yield* proposalRefresh(create.id)).toMatchObject({ outcome: "already-applied", files: [{ result: "already-applied" }] })
      expect((yield* findProposal(create.id)).status).toBe("rejected")
    }).pipe(Effect.provide(AkmTest)))

  it.effect("a proposal whose files are as it expects is current; an accepted one is refused", () =>
    Effect.gen(function* () {
      const { id } = yield* staged("knowledge/notes.md", body("a\n"), body("b\n"))
      expect(yield* proposalRefresh(id)).toMatchObject({ outcome: "current", hint: expect.stringContaining("akm proposal accept") })
      yield* proposalAccept(id)
      expect(failure(yield* Effect.exit(proposalRefresh(id)))).toMatchObject({ _tag: "Conflict", message: expect.stringContaining("accepted") })
    }).pipe(Effect.provide(AkmTest)))
})
