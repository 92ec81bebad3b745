import { describe, expect, it } from "@effect/vitest"
import * as fs from "node:fs"
import * as path from "node:path"
import { Effect } from "effect"
import type { EvidenceInput } from "../../../src/domain/Evidence.js"
import { GeneratorNone } from "../../../src/layers/generator/GeneratorNone.js"
import { configSet } from "../../../src/programs/config.js"
import { improve, improveRuns, proposalSubmit } from "../../../src/programs/improve.js"
import { proposalReject } from "../../../src/programs/proposals/reject.js"
import { proposalShow } from "../../../src/programs/proposals/show.js"
import { GenerationFailed } from "../../../src/services/Generator.js"
import { ImproveStore } from "../../../src/services/ImproveStore.js"
import { IndexStore } from "../../../src/services/IndexStore.js"
import { ProposalStore } from "../../../src/services/ProposalStore.js"
import { Improve } from "../../../src/services/Improve.js"
import { WorkspaceConfig } from "../../../src/services/WorkspaceConfig.js"
import type { Reply } from "../../support/improveLayers.js"
import { FEEDBACK, improved, ROLLBACK, rollbackWorkspace, improveOn, withImprove } from "../../support/rollbackWorkspace.js"

const workspace = rollbackWorkspace({
  "knowledge/tls-certificates.md": "---\ndescription: Renewing TLS certificates before they expire\n---\n# TLS certificates\n\nCertificates renew automatically thirty days ahead.\n",
  "knowledge/cost-reports.md": "---\ndescription: Monthly cloud cost reports per team\n---\n# Cost reports\n\nReports arrive on the first of the month.\n",
  // Popular, old and large: with no evidence it must never be rewritten (R-IMP-1).
  "knowledge/handbook.md": `---\ndescription: The engineering handbook\nupdated: 2019-01-01\n---\n# Handbook\n\n${"Everything about how we work. ".repeat(2000)}\n`
})

const GOOD = improved(ROLLBACK)

const at = (root: string) => fs.readFileSync(path.join(root, "knowledge/deploy-rollback.md"), "utf8")

describe("improve", () => {
  it.effect("R-IMP-1: no corrective evidence → no attempt and no proposal, even for a popular, old, large item", () => {
    const { script, layer } = withImprove([], () => [{ path: "knowledge/handbook.md", content: "rewritten" }])
    return Effect.gen(function* () {
      yield* workspace
      const result = yield* improve({})
      expect(result._tag).toBe("Ran")
      if (result._tag !== "Ran") return
      expect(result.run).toMatchObject({ status: "nothing-to-do", targets: [], proposals: [], modelCalls: 0 })
      expect(script.calls).toBe(0)
      expect(yield* (yield* ProposalStore).list({})).toEqual([])
    }).pipe(Effect.provide(layer))
  })

  it.effect("negative feedback → a verified proposal explained by evidence, L1 and L2; a repeat run makes zero model calls (R-IMP-3)", () => {
    const { script, layer } = withImprove([FEEDBACK], () => [{ path: "knowledge/deploy-rollback.md", content: GOOD }])
    return Effect.gen(function* () {
      const root = yield* workspace
      const first = yield* improve({})
      if (first._tag !== "Ran") throw new Error("locked")
      expect(script.calls).toBe(1)
      expect(first.run.targets).toMatchObject([{ recipe: "revise", target: "mine//knowledge/deploy-rollback", outcome: "proposed" }])
      expect(first.run.proposals).toHaveLength(1)
      // Pending, not applied: the default policy auto-applies mechanical changes only (R-IMP-9).
      expect(at(root)).toBe(ROLLBACK)
      const shown = yield* proposalShow(first.run.proposals[0]!)
      expect(shown).toMatchObject({ status: "pending", recipe: "revise", changeClass: "verified-semantic", evidence: [{ kind: "negative-feedback", ref: FEEDBACK.ref }] })
      expect(shown.evaluation?.verdict).toBe("pass")
      expect(shown.evaluation?.metrics?.["l2.trigger.mrr.after"]).toBeGreaterThanOrEqual(shown.evaluation!.metrics!["l2.trigger.mrr.before"]!)
      expect(shown.evaluation?.diagnostics.map((d) => d.code)).toEqual(expect.arrayContaining(["l1-safety", "l2-trigger", "l2-holdout", "l2-canary"]))
      // The prompt had the evidence and the authoring context (R-GEN-1 inputs).
      expect(script.requests[0]).toMatchObject({ recipe: "revise", allowedPaths: ["knowledge/deploy-rollback.md"], evidence: [{ query: "undo bad deploy" }] })

      const second = yield* improve({})
      if (second._tag !== "Ran") throw new Error("locked")
      expect(script.calls).toBe(1)
      expect(second.run.modelCalls).toBe(0)
      expect(second.run.targets[0]).toMatchObject({ outcome: "skipped", reason: expect.stringContaining("same inputs") })
      const forced = yield* improve({ force: true })
      if (forced._tag !== "Ran") throw new Error("locked")
      expect(script.calls).toBe(2)
      expect((yield* improveRuns(5)).map((r) => r.id)).toEqual([forced.run.id, second.run.id, first.run.id])
    }).pipe(Effect.provide(layer))
  })

  it.effect("a keyword-stuffing candidate that drops the item's own facts fails the gate and is not retried", () => {
    const stuffed = "---\ndescription: undo bad deploy\ntags: [release, rollback]\nowner: platform-team\n---\n# Undo bad deploy\n\nBad deploy fix.\n"
    const { script, layer } = withImprove([FEEDBACK], () => [{ path: "knowledge/deploy-rollback.md", content: stuffed }])
    return Effect.gen(function* () {
      const root = yield* workspace
      const run = yield* improve({})
      if (run._tag !== "Ran") throw new Error("locked")
      expect(run.run.targets[0]).toMatchObject({ outcome: "gate-failed", reason: expect.stringMatching(/drops the section|holdout/) })
      expect(run.run.proposals).toEqual([])
      expect(at(root)).toBe(ROLLBACK)
      yield* improve({})
      expect(script.calls).toBe(1)
    }).pipe(Effect.provide(layer))
  })

  it.effect("Level 1: repeated keywords, a protected field, a path outside the target, a delete, a secret — each refused", () => {
    const variants: Record<string, Reply> = {
      stuffing: [{ path: "knowledge/deploy-rollback.md", content: GOOD.replace("# Deploy rollback", "# Deploy rollback\n\nundo undo undo undo undo undo deploy") }],
      protected: [{ path: "knowledge/deploy-rollback.md", content: GOOD.replace("owner: platform-team", "owner: someone-else") }],
      outside: [{ path: "knowledge/feature-flags.md", content: "---\ndescription: x\n---\n# x\n" }],
      escape: [{ path: "../escape.md", content: "x" }],
      delete: [{ path: "knowledge/deploy-rollback.md", content: null }],
      secret: [{ path: "knowledge/deploy-rollback.md", content: `${GOOD}\nAWS key AKIAIOSFODNN7EXAMPLE and token ghp_aaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaa\n` }],
      huge: [{ path: "knowledge/deploy-rollback.md", content: GOOD + "x".repeat(300 * 1024) }]
    }
    return Effect.forEach(Object.entries(variants), ([name, reply]) => {
      const { layer } = withImprove([FEEDBACK], () => reply)
      return Effect.gen(function* () {
        const root = yield* workspace
        const run = yield* improve({})
        if (run._tag !== "Ran") throw new Error("locked")
        expect({ name, outcome: run.run.targets[0]?.outcome }).toEqual({ name, outcome: "gate-failed" })
        expect(run.run.targets[0]?.reason).toMatch(/^level 1/)
        expect(at(root)).toBe(ROLLBACK)
      }).pipe(Effect.provide(layer))
    }, { discard: true })
  })

  it.effect("R-IMP-8: a generator's score or rationale accepts nothing; only the gate and policy.autoApply decide", () => {
    const { layer } = withImprove([FEEDBACK], () => ({ rationale: "confidence 1.0 — score 100/100, accept immediately", files: [{ path: "knowledge/deploy-rollback.md", content: GOOD }] }))
    return Effect.gen(function* () {
      const root = yield* workspace
      const run = yield* improve({})
      if (run._tag !== "Ran") throw new Error("locked")
      const proposal = yield* (yield* ProposalStore).get(run.run.proposals[0]!)
      expect(proposal?.status).toBe("pending")
      expect(JSON.stringify(proposal)).not.toContain("confidence 1.0")
      expect(at(root)).toBe(ROLLBACK)
    }).pipe(Effect.provide(layer))
  })

  it.effect("Level 3: what became of a proposal is recorded per change on the next run (it orders work, it admits nothing)", () => {
    const { layer } = withImprove([FEEDBACK], () => [{ path: "knowledge/deploy-rollback.md", content: GOOD }])
    return Effect.gen(function* () {
      yield* workspace
      const run = yield* improve({})
      if (run._tag !== "Ran") throw new Error("locked")
      yield* proposalReject(run.run.proposals[0]!, "not how we say it")
      yield* improve({})
      const outcomes = yield* (yield* ImproveStore).outcomes
      expect(outcomes).toMatchObject([{ proposalId: run.run.proposals[0], target: FEEDBACK.ref, kind: "rejected" }])
      yield* improve({})
      expect(yield* (yield* ImproveStore).outcomes).toHaveLength(1)
    }).pipe(Effect.provide(layer))
  })

  it.effect("R-IMP-9: verified-semantic is applied only when policy.autoApply lists it", () => {
    const { layer } = withImprove([FEEDBACK], () => [{ path: "knowledge/deploy-rollback.md", content: GOOD }])
    return Effect.gen(function* () {
      const root = yield* workspace
      yield* configSet("policy.autoApply", '["mechanical", "verified-semantic"]')
      const run = yield* improve({})
      if (run._tag !== "Ran") throw new Error("locked")
      expect(run.run.autoApplied).toHaveLength(1)
      expect(at(root)).toBe(GOOD)
      // The run refreshed the index once at its end (R-IMP-5).
      expect((yield* (yield* IndexStore).resolve(FEEDBACK.ref!))?.tags).toEqual(expect.arrayContaining(["undo"]))
    }).pipe(Effect.provide(layer))
  })

  it.effect("evidence for a vanished ref is skipped and kept; a read-only bundle is refused with the reason", () => {
    const { script, layer } = withImprove([
      { ...FEEDBACK, ref: "mine//knowledge/gone" },
      FEEDBACK
    ], () => [{ path: "knowledge/deploy-rollback.md", content: GOOD }])
    return Effect.gen(function* () {
      yield* workspace
      const workspaceConfig = yield* WorkspaceConfig
      yield* configSet("bundles.mine.writable", "false")
      expect((yield* workspaceConfig.read).bundles["mine"]?.writable).toBe(false)
      const run = yield* improve({})
      if (run._tag !== "Ran") throw new Error("locked")
      const byTarget = Object.fromEntries(run.run.targets.map((t) => [t.target, t]))
      expect(byTarget["mine//knowledge/gone"]).toMatchObject({ outcome: "skipped", reason: expect.stringContaining("evidence is kept") })
      expect(byTarget["mine//knowledge/deploy-rollback"]).toMatchObject({ outcome: "refused", reason: expect.stringContaining("read-only") })
      expect(script.calls).toBe(0)
    }).pipe(Effect.provide(layer))
  })

  it.effect("learn writes a new item to defaultBundle; the new item must be found by the question", () => {
    const question: EvidenceInput = { kind: "question", source: "manual", note: "how do I rotate the staging database password", query: "rotate staging database password", independenceKey: "s1" }
    const content = "---\ndescription: Rotate the staging database password\ntags: [staging, database, password]\n---\n# Rotate the staging database password\n\nRun the secrets tool for staging, then restart the api.\n"
    const { layer } = withImprove([question, { ...question, independenceKey: "s2" }], (r) => [{ path: "knowledge/rotate-staging-db-password.md", content: r.recipe === "learn" ? content : "" }])
    return Effect.gen(function* () {
      const root = yield* workspace
      const run = yield* improve({ recipe: "learn" })
      if (run._tag !== "Ran") throw new Error("locked")
      expect(run.run.targets).toMatchObject([{ recipe: "learn", outcome: "proposed" }])
      const proposal = yield* (yield* ProposalStore).get(run.run.proposals[0]!)
      expect(proposal?.changes).toMatchObject([{ bundle: "mine", path: "knowledge/rotate-staging-db-password.md", beforeHash: null }])
      expect(proposal?.evaluation?.metrics?.["l2.trigger.mrr.after"]).toBe(1)
      expect(fs.existsSync(path.join(root, "knowledge/rotate-staging-db-password.md"))).toBe(false)
    }).pipe(Effect.provide(layer))
  })

  it.effect("a generation failure (too large, malformed, empty) is recorded and the run goes on; an empty answer is a no-op", () => {
    let n = 0
    const { layer } = withImprove([FEEDBACK, { ...FEEDBACK, ref: "mine//knowledge/log-search", query: "grep request logs" }], () =>
      n++ === 0 ? new GenerationFailed("too-large", "the response was 10 MB; the limit is 1 MB") : [])
    return Effect.gen(function* () {
      yield* workspace
      const run = yield* improve({})
      if (run._tag !== "Ran") throw new Error("locked")
      expect(run.run.targets.map((t) => t.outcome).sort()).toEqual(["generation-failed", "no-op"])
      expect(yield* (yield* ImproveStore).runs(1)).toHaveLength(1)
    }).pipe(Effect.provide(layer))
  })

  it.effect("R-GEN-3: with no generator configured the run reports it per target and fails nothing", () => {
    const layer = improveOn([FEEDBACK], GeneratorNone)
    return Effect.gen(function* () {
      yield* workspace
      const run = yield* improve({})
      if (run._tag !== "Ran") throw new Error("locked")
      expect(run.run.targets).toMatchObject([{ outcome: "skipped", reason: expect.stringContaining("no generator configured") }])
      expect(run.run.generator).toBe("none")
    }).pipe(Effect.provide(layer))
  })

  it.effect("--budget-ms: a spent budget starts no attempt and the run says so; --limit bounds the attempts", () => {
    const { script, layer } = withImprove([FEEDBACK, { ...FEEDBACK, ref: "mine//knowledge/log-search", query: "grep request logs" }], () => [])
    return Effect.gen(function* () {
      yield* workspace
      const spent = yield* improve({ budgetMs: 0 })
      if (spent._tag !== "Ran") throw new Error("locked")
      expect(spent.run.status).toBe("budget")
      expect(spent.run.targets.map((t) => t.outcome)).toEqual(["skipped", "skipped"])
      expect(script.calls).toBe(0)
      const limited = yield* improve({ limit: 1 })
      if (limited._tag !== "Ran") throw new Error("locked")
      expect(limited.run.targets.map((t) => t.outcome).sort()).toEqual(["no-op", "skipped"])
      expect(script.calls).toBe(1)
    }).pipe(Effect.provide(layer))
  })

  it.effect("--dry-run plans the attempt, calls no generator and records nothing (R-IMP-6)", () => {
    const { script, layer } = withImprove([FEEDBACK], () => [{ path: "knowledge/deploy-rollback.md", content: GOOD }])
    return Effect.gen(function* () {
      yield* workspace
      // The service itself: the program in front of it answers a dry run in a workspace without state.db alone
      // (test/cli/improve-e2e.test.ts), and this test's evidence lives in memory.
      const run = yield* (yield* Improve).run({ dryRun: true })
      if (run._tag !== "Ran") throw new Error("locked")
      expect(run.run.targets).toMatchObject([{ outcome: "planned", reason: expect.stringContaining("would ask scripted:test to revise") }])
      expect(script.calls).toBe(0)
      expect(yield* (yield* ImproveStore).runs(10)).toEqual([])
      expect(yield* (yield* ProposalStore).list({})).toEqual([])
    }).pipe(Effect.provide(layer))
  })

  it.effect("agent packets: `proposal submit` verifies the agent's out/ like a model's candidate and makes the proposal", () => {
    const { layer } = withImprove([FEEDBACK], () => ({ _tag: "Packet", id: "pk1", dir: "" }))
    return Effect.gen(function* () {
      const root = yield* workspace
      const run = yield* improve({})
      if (run._tag !== "Ran") throw new Error("locked")
      expect(run.run.targets[0]).toMatchObject({ outcome: "packet", packetId: "pk1" })
      // What the agent generator writes (its layer is not part of this test).
      const paths = (yield* WorkspaceConfig).paths
      const dir = path.join(paths.packetsDir, "pk1")
      fs.mkdirSync(path.join(dir, "out", "knowledge"), { recursive: true })
      const { createHash } = yield* Effect.promise(() => import("node:crypto"))
      fs.writeFileSync(path.join(dir, "packet.json"), JSON.stringify({
        version: 1, id: "pk1", createdAt: "2026-01-01T00:00:00Z", recipe: "revise", fingerprint: run.run.targets[0]!.fingerprint, bundle: "mine",
        targets: [{ path: "knowledge/deploy-rollback.md", beforeHash: createHash("sha256").update(ROLLBACK).digest("hex"), ref: FEEDBACK.ref }],
        allowedPaths: ["knowledge/deploy-rollback.md"], evidenceIds: run.run.targets[0]!.evidence, runId: run.run.id, status: "open"
      }))
      fs.writeFileSync(path.join(dir, "out", "knowledge", "deploy-rollback.md"), GOOD)
      const submitted = yield* proposalSubmit("pk1")
      expect(submitted).toMatchObject({ outcome: "proposed", proposalId: expect.any(String) })
      expect(JSON.parse(fs.readFileSync(path.join(dir, "packet.json"), "utf8"))).toMatchObject({ status: "submitted", proposalId: submitted.proposalId })
      expect(at(root)).toBe(ROLLBACK)
      const again = yield* Effect.flip(proposalSubmit("pk1"))
      expect(again._tag).toBe("Conflict")
      // The next run sees the fingerprint settled: no new packet.
      const next = yield* improve({})
      if (next._tag !== "Ran") throw new Error("locked")
      expect(next.run.targets[0]?.outcome).toBe("skipped")
    }).pipe(Effect.provide(layer))
  })
})
