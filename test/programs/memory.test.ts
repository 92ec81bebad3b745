import { describe, expect, it } from "@effect/vitest"
import * as fs from "node:fs"
import * as path from "node:path"
import { Effect, TestClock } from "effect"
import { AkmTest } from "../../src/layers/test/AkmTest.js"
import { bundleAdd } from "../../src/programs/bundle/add.js"
import { configSet } from "../../src/programs/config.js"
import { memoryConsolidate } from "../../src/programs/memory/consolidate.js"
import { memoryHold } from "../../src/programs/memory/hold.js"
import { memoryPurge } from "../../src/programs/memory/purge.js"
import { memoryRestore } from "../../src/programs/memory/restore.js"
import { memoryStatus } from "../../src/programs/memory/status.js"
import { readTier } from "../../src/programs/memory/tiers.js"
import { captureMemory, remember } from "../../src/programs/remember.js"
import { WorkspaceConfig } from "../../src/services/WorkspaceConfig.js"
import { caller, failure, folder, mine } from "./writeFixtures.js"

// The memory lifecycle through the library (spec 06 §8; R-MEM-1..5), bad input included (issue 23 item 9).

const DAY = 86_400_000
const set = (key: string, value: string) => configSet(key, value)

describe("memory facet and remember", () => {
  it.effect("remember --expires/--supersedes into akm, okf and project bundles; the facet reads them back", () =>
    Effect.gen(function* () {
      yield* mine
      const project = folder({ "AGENTS.md": "# Agents\n", "memory/.keep": "" })
      fs.rmSync(path.join(project, "memory", ".keep"))
      yield* bundleAdd({ source: project, name: "proj", adapter: "project", writable: true, ...caller })
      yield* bundleAdd({ source: folder({ "index.md": "# Notes\n" }), name: "notes", adapter: "okf", writable: true, ...caller })
      for (const bundle of ["mine", "proj", "notes"]) {
        const old = yield* remember({ text: "The VPN uses OpenVPN.", bundle })
        const made = yield* remember({ text: "The VPN uses WireGuard.", bundle, expires: "30d", supersedes: [old.ref!] })
        expect(made.status).toBe("accepted")
        const tier = (yield* readTier(bundle))!
        const now = yield* TestClockNow
        const record = tier.active.find((r) => r.ref === made.ref)!
        expect(record).toMatchObject({ supersedes: [old.ref], expires: new Date(now + 30 * DAY).toISOString() })
        expect(record.path.startsWith(bundle === "proj" ? "memory/" : "memories/")).toBe(true)
        const plan = yield* memoryConsolidate({ bundle, dryRun: true })
        expect(plan.tiers[0]!.retired).toEqual([expect.objectContaining({ ref: old.ref, reason: "superseded", successors: [made.ref] })])
      }
      const bad = failure(yield* Effect.exit(remember({ text: "x", bundle: "mine", expires: "next week" })))
      expect(bad.message).toContain("neither a duration")
      const unknown = failure(yield* Effect.exit(remember({ text: "x", bundle: "mine", supersedes: ["memories/nowhere"] })))
      expect(unknown.message).toContain("no memory mine//memories/nowhere")
    }).pipe(Effect.provide(AkmTest)))

  it.effect("bad input: broken frontmatter and an unknown expires are reported with file and line, never retired", () =>
    Effect.gen(function* () {
      const root = yield* mine
      fs.mkdirSync(path.join(root, "memories"), { recursive: true })
      fs.writeFileSync(path.join(root, "memories", "broken.md"), "---\nexpires: [2020-01-01\n---\n# Broken\n\nBroken.\n")
      fs.writeFileSync(path.join(root, "memories", "odd.md"), "---\ndescription: odd\nexpires: next tuesday\n---\n# Odd\n\nOdd.\n")
      fs.writeFileSync(path.join(root, "memories", "a.md"), "---\nsupersededBy: memories/b\n---\nA.\n")
      fs.writeFileSync(path.join(root, "memories", "b.md"), "---\nsupersededBy: memories/a\n---\nB.\n")
      const status = yield* memoryStatus()
      const messages = status.problems.map((p) => p.message)
      expect(messages).toContainEqual(expect.stringMatching(/^memories\/broken\.md:\d+: the frontmatter cannot be read/))
      expect(messages).toContainEqual(expect.stringContaining("memories/odd.md:3: expires 'next tuesday' is neither a duration"))
      expect(messages.filter((m) => m.startsWith("supersession cycle"))).toHaveLength(2)
      const run = yield* memoryConsolidate({})
      expect(run.tiers[0]!.retired).toEqual([])
      expect(fs.readdirSync(path.join(root, "memories")).sort()).toEqual(["a.md", "b.md", "broken.md", "odd.md"])
    }).pipe(Effect.provide(AkmTest)))
})

describe("archive, restore, purge, hold", () => {
  it.effect("a hand-deleted blob: restore fails clearly, status lists it; purge honours grace, holds and deleted successors", () =>
    Effect.gen(function* () {
      const root = yield* mine
      const keep = yield* remember({ text: "Keep this fact.", bundle: "mine" })
      const dupA = yield* remember({ text: "Keep this fact.", bundle: "mine" })
      const other = yield* remember({ text: "Another fact stays.", bundle: "mine" })
      const dupB = yield* remember({ text: "Another fact stays.", bundle: "mine" })
      const gone = yield* remember({ text: "Short-lived fact.", bundle: "mine", expires: "1h" })
      yield* TestClock.adjust(2 * 3_600_000)
      const run = yield* memoryConsolidate({})
      expect(run.tiers[0]!.retired.map((r) => [r.ref, r.reason]).sort()).toEqual([[dupA.ref, "duplicate"], [dupB.ref, "duplicate"], [gone.ref, "expired"]].sort())
      const dataDir = (yield* WorkspaceConfig).paths.dataDir

      // The expired one's blob is deleted by hand.
      const goneDigest = run.tiers[0]!.retired.find((r) => r.ref === gone.ref)!.digest
      fs.rmSync(path.join(dataDir, "archive", "blobs", "sha256", goneDigest.slice(0, 2), goneDigest))
      const broken = failure(yield* Effect.exit(memoryRestore(gone.ref!)))
      expect(broken.message).toContain("archived bytes")
      expect(broken.message).toContain(goneDigest)
      expect((yield* memoryStatus()).archive.missing).toEqual([{ ref: gone.ref, digest: goneDigest }])

      // Within the grace period nothing is purged.
      expect((yield* memoryPurge({ dryRun: true })).purged).toEqual([])
      yield* memoryHold(dupA.ref!)
      fs.rmSync(path.join(root, `${other.ref!.slice("mine//".length)}.md`))
      yield* TestClock.adjust(31 * DAY)
      const dry = yield* memoryPurge({ dryRun: true })
      // The expired item has no successor: past grace it is eligible (its blob is already gone).
      expect(dry.purged.map((p) => p.ref).sort()).toEqual([gone.ref])
      expect(dry.kept).toEqual([expect.objectContaining({ ref: dupA.ref, reason: "held" })])
      expect(dry.refused).toEqual([expect.objectContaining({ ref: dupB.ref, reason: expect.stringContaining(`its successor ${other.ref} was deleted`) })])
      yield* memoryPurge({})
      // Held and refused ones stay restorable.
      const back = yield* memoryRestore(dupB.ref!)
      expect(back).toMatchObject({ status: "restored", mode: "proposal" })
      expect(fs.existsSync(path.join(root, `${dupB.ref!.slice("mine//".length)}.md`))).toBe(true)
      expect(keep.ref).toBeDefined()
      yield* TestClock.adjust(400 * DAY)
      expect((yield* memoryPurge({})).purged).toEqual([])
      expect((yield* memoryPurge({ dryRun: true })).kept).toEqual([expect.objectContaining({ ref: dupA.ref, reason: "held" })])
    }).pipe(Effect.provide(AkmTest)))
})

describe("backpressure (R-MEM-2) and semantic retirement (R-MEM-4)", () => {
  it.effect("a blocked tier queues background intake in state.db; an explicit remember still writes, with a warning", () =>
    Effect.gen(function* () {
      yield* mine
      yield* set("memory.highWaterItems", "2")
      yield* set("memory.lowWaterItems", "1")
      for (const text of ["Fact one is unique.", "Fact two is unique.", "Fact three is unique."]) yield* remember({ text, bundle: "mine" })
      expect((yield* memoryStatus()).tiers[0]).toMatchObject({ items: 3, state: "blocked" })
      const queued = yield* captureMemory({ text: "Captured from a session.", bundle: "mine" })
      expect(queued).toMatchObject({ queued: true, bundle: "mine" })
      expect((yield* memoryStatus()).queued).toBe(1)
      expect((yield* memoryStatus()).tiers[0]!.items).toBe(3)
      const explicit = yield* remember({ text: "Fact four, asked for.", bundle: "mine" })
      expect(explicit).toMatchObject({ status: "accepted", warning: expect.stringContaining("over high water (2)") })
      yield* set("memory.backgroundIntakeWhenBlocked", "write")
      expect(yield* captureMemory({ text: "Captured again.", bundle: "mine" })).toMatchObject({ status: "accepted" })
    }).pipe(Effect.provide(AkmTest)))

  it.effect("coverage retirement runs only with semanticRetirement: true, as a semantic proposal", () =>
    Effect.gen(function* () {
      yield* mine
      yield* set("memory.highWaterItems", "2")
      yield* set("memory.lowWaterItems", "1")
      yield* remember({ text: "The runner IP is 10.0.0.7.", bundle: "mine" })
      yield* remember({ text: "The runner IP is 10.0.0.7.\nDeploys freeze on Fridays.", bundle: "mine", title: "Runner and deploys" })
      yield* remember({ text: "The staging DB is in eu-west-1.", bundle: "mine" })
      expect((yield* memoryConsolidate({ dryRun: true })).tiers[0]!.retired).toEqual([])
      yield* set("memory.semanticRetirement", "true")
      const dry = yield* memoryConsolidate({ dryRun: true })
      expect(dry.tiers[0]!.retired).toEqual([expect.objectContaining({ ref: "mine//memories/the-runner-ip-is-10-0-0-7", reason: "covered" })])
      const run = yield* memoryConsolidate({})
      // policy.autoApply lists mechanical only: a semantic retirement waits for review.
      expect(run.tiers[0]!.proposals).toEqual([expect.objectContaining({ changeClass: "semantic", status: "pending" })])
      expect(run.tiers[0]!.state).toBe("reducing")
    }).pipe(Effect.provide(AkmTest)))
})

const TestClockNow = Effect.flatMap(Effect.clock, (clock) => clock.currentTimeMillis)
