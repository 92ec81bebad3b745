import { describe, expect, it } from "@effect/vitest"
import * as fs from "node:fs"
import * as path from "node:path"
import { Effect } from "effect"
import { AkmTest } from "../../src/layers/test/AkmTest.js"
import { bundleAdd } from "../../src/programs/bundle/add.js"
import { bundleCreate } from "../../src/programs/bundle/create.js"
import { configSet } from "../../src/programs/config.js"
import { memoryConsolidate } from "../../src/programs/memory/consolidate.js"
import { memoryRestore } from "../../src/programs/memory/restore.js"
import { memoryStatus } from "../../src/programs/memory/status.js"
import { proposalAccept } from "../../src/programs/proposals/accept.js"
import { readTier } from "../../src/programs/memory/tiers.js"
import { MemoryStore } from "../../src/services/MemoryStore.js"
import { ProposalStore } from "../../src/services/ProposalStore.js"
import { scriptedGenerator } from "../support/improveLayers.js"
import { caller, failure, folder, mine } from "./writeFixtures.js"

// The generator paths of `akm memory consolidate` (spec 06 §8.4; R-MEM-3, R-TX-9): compact and formalize.

const OLD = "---\nobservedAt: 2026-01-05T10:00:00Z\n---\nThe office VPN listens on port 1194.\nThe VPN gateway is vpn.example.com.\n"
const NEW = "---\nobservedAt: 2026-03-01T09:00:00Z\n---\nThe office VPN listens on port 51820.\n"
const OTHER = "---\nobservedAt: 2026-01-01T00:00:00Z\n---\nLunch is served at noon in the cafeteria.\n"

/** Three memories in "mine": two related (a changed port), one unrelated; high water 2, low 1. */
const tierOverHigh = Effect.gen(function* () {
  const root = yield* mine
  fs.mkdirSync(path.join(root, "memories"), { recursive: true })
  fs.writeFileSync(path.join(root, "memories", "vpn-old.md"), OLD)
  fs.writeFileSync(path.join(root, "memories", "vpn-new.md"), NEW)
  fs.writeFileSync(path.join(root, "memories", "lunch.md"), OTHER)
  yield* configSet("memory.highWaterItems", "2")
  yield* configSet("memory.lowWaterItems", "1")
  return root
})

const memories = (root: string) => fs.readdirSync(path.join(root, "memories")).sort()

describe("compact: related memories → one item through the generator", () => {
  it.effect("a generated item that drops a claim does not retire its source; a changed value is kept with temporal qualifiers", () => {
    // Picks the new port only and forgets the gateway.
    const { script, layer } = scriptedGenerator((request) => [{ path: request.allowedPaths[0]!, content: "# Office VPN\n\nThe office VPN listens on port 51820.\n" }])
    return Effect.gen(function* () {
      const root = yield* tierOverHigh
      const run = yield* memoryConsolidate({})
      const tier = run.tiers[0]!
      expect(script.calls).toBe(1)
      expect(script.requests[0]!.recipe).toBe("consolidate")
      expect(script.requests[0]!.instructions).toContain("Until 2026-03-01")
      expect(tier.consolidated).toHaveLength(1)
      const item = tier.consolidated[0]!
      expect(item).toMatchObject({ outcome: "compact", retired: ["mine//memories/vpn-new"], qualified: [expect.stringContaining("Until 2026-03-01: The office VPN listens on port 1194; since 2026-03-01: The office VPN listens on port 51820.")] })
      expect(item.kept).toEqual([{ ref: "mine//memories/vpn-old", claim: "The VPN gateway is vpn.example.com.", reason: expect.any(String) }])
      // A semantic consolidation always waits for review (R-IMP-9); accepting it retires the covered source.
      expect(item.proposal).toMatchObject({ status: "pending" })
      expect(memories(root)).toEqual(["lunch.md", "vpn-new.md", "vpn-old.md"])
      yield* proposalAccept(item.proposal!.id)
      // The source with an uncovered claim stays live; the covered one left for the archive.
      const written = item.path!
      expect(memories(root)).toEqual(["lunch.md", path.basename(written), "vpn-old.md"].sort())
      const text = fs.readFileSync(path.join(root, written), "utf8")
      expect(text).toContain("The office VPN listens on port 51820.")
      expect(text).toContain("Until 2026-03-01: The office VPN listens on port 1194; since 2026-03-01: The office VPN listens on port 51820.")
      expect((yield* memoryStatus()).tiers[0]!.items).toBe(3)
      const rows = yield* (yield* MemoryStore).list({ states: ["retired"] })
      expect(rows).toEqual([expect.objectContaining({ ref: "mine//memories/vpn-new", reason: "compacted", successors: [item.ref], proposalId: item.proposal!.id })])
      expect(rows[0]!.dispositions.every((d) => d.disposition === "in-successor")).toBe(true)
      expect((yield* (yield* ProposalStore).get(item.proposal!.id))).toMatchObject({ changeClass: "semantic", status: "accepted", recipe: "memory-consolidate" })
      // Recoverable from the archive.
      expect(yield* memoryRestore("mine//memories/vpn-new")).toMatchObject({ status: "restored" })
      expect(fs.readFileSync(path.join(root, "memories", "vpn-new.md"), "utf8")).toBe(NEW)
    }).pipe(Effect.provide(layer), Effect.provide(AkmTest))
  })

  it.effect("an item that states every claim retires every source; a pending consolidation is not asked for again", () => {
    const { script, layer } = scriptedGenerator((request) => [{
      path: request.allowedPaths[0]!,
      content: "# Office VPN\n\nUntil 2026-03-01: The office VPN listens on port 1194; since 2026-03-01: The office VPN listens on port 51820.\nThe VPN gateway is vpn.example.com.\n"
    }])
    return Effect.gen(function* () {
      const root = yield* tierOverHigh
      const dry = yield* memoryConsolidate({ dryRun: true })
      expect(script.calls).toBe(0)
      expect(dry.tiers[0]!.consolidated).toEqual([expect.objectContaining({ sources: ["mine//memories/vpn-old", "mine//memories/vpn-new"], skipped: expect.stringContaining("would ask scripted:test") })])
      const run = yield* memoryConsolidate({})
      const item = run.tiers[0]!.consolidated[0]!
      expect(item).toMatchObject({ retired: ["mine//memories/vpn-old", "mine//memories/vpn-new"], kept: [], qualified: [], proposal: { status: "pending" } })
      expect(run.tiers[0]!.state).toBe("reducing")
      // Waiting for review: nothing changed on disk, and a second pass asks nothing.
      expect(memories(root)).toEqual(["lunch.md", "vpn-new.md", "vpn-old.md"])
      yield* memoryConsolidate({})
      expect(script.calls).toBe(1)
    }).pipe(Effect.provide(layer), Effect.provide(AkmTest))
  })
})

describe("compact a read-only tier (decision 0047)", () => {
  it.effect("the item goes to the default writable bundle's memory tier; accepting it masks the read-only sources with overlays, never writing them", () => {
    const { script, layer } = scriptedGenerator((request) => [{
      path: request.allowedPaths[0]!,
      content: "# Office VPN\n\nUntil 2026-03-01: The office VPN listens on port 1194; since 2026-03-01: The office VPN listens on port 51820.\nThe VPN gateway is vpn.example.com.\n"
    }])
    return Effect.gen(function* () {
      const root = yield* mine
      const ro = folder({ "memories/vpn-old.md": OLD, "memories/vpn-new.md": NEW, "memories/lunch.md": OTHER })
      yield* bundleAdd({ source: ro, name: "ro", adapter: "akm", writable: false, ...caller })
      expect((yield* readTier("ro"))!.info.writable).toBe(false)
      yield* configSet("memory.highWaterItems", "2")
      yield* configSet("memory.lowWaterItems", "1")
      const run = yield* memoryConsolidate({ bundle: "ro" })
      expect(script.calls).toBe(1)
      const tier = run.tiers[0]!
      expect(tier.mode).toBe("overlay")
      const item = tier.consolidated[0]!
      expect(item).toMatchObject({ outcome: "compact", bundle: "mine", retired: ["ro//memories/vpn-old", "ro//memories/vpn-new"], proposal: { status: "pending" } })
      expect(item.path!.startsWith("memories/")).toBe(true)
      expect((yield* (yield* ProposalStore).get(item.proposal!.id))!.changes.map((c) => `${c.bundle}//${c.path}`)).toEqual([`mine//${item.path}`])
      // Waiting for review: a second pass does not ask again.
      yield* memoryConsolidate({ bundle: "ro" })
      expect(script.calls).toBe(1)
      yield* proposalAccept(item.proposal!.id)
      expect(fs.readFileSync(path.join(root, item.path!), "utf8")).toContain("The VPN gateway is vpn.example.com.")
      // The next memory command masks both sources; the read-only files are untouched.
      yield* memoryStatus()
      const rows = yield* (yield* MemoryStore).list({ states: ["retired"] })
      expect(rows.map((r) => [r.ref, r.overlay, r.reason, r.successors]).sort()).toEqual([
        ["ro//memories/vpn-new", true, "compacted", [item.ref]],
        ["ro//memories/vpn-old", true, "compacted", [item.ref]]
      ])
      expect((yield* readTier("ro"))!.active.map((r) => r.ref)).toEqual(["ro//memories/lunch"])
      expect(fs.readdirSync(path.join(ro, "memories")).sort()).toEqual(["lunch.md", "vpn-new.md", "vpn-old.md"])
      expect(fs.readFileSync(path.join(ro, "memories", "vpn-old.md"), "utf8")).toBe(OLD)
    }).pipe(Effect.provide(layer), Effect.provide(AkmTest))
  })
})

describe("formalize: --to <bundle>, two-phase (R-TX-9)", () => {
  it.effect("publishes one knowledge item in the destination, then retires the sources it fully states", () => {
    const { layer } = scriptedGenerator((request) => [{
      path: request.allowedPaths[0]!,
      content: "# Office VPN\n\nUntil 2026-03-01: The office VPN listens on port 1194; since 2026-03-01: The office VPN listens on port 51820.\nThe VPN gateway is vpn.example.com.\n"
    }])
    return Effect.gen(function* () {
      const root = yield* tierOverHigh
      yield* bundleCreate({ name: "team", setDefault: false, ...caller })
      const teamRoot = (yield* readTier("team"))!.info.root
      const run = yield* memoryConsolidate({ bundle: "mine", to: "team" })
      const item = run.tiers[0]!.consolidated[0]!
      expect(item).toMatchObject({ outcome: "formalize", bundle: "team", retired: ["mine//memories/vpn-old", "mine//memories/vpn-new"], proposal: { status: "pending" } })
      expect(item.path!.startsWith("knowledge/")).toBe(true)
      const accepted = yield* proposalAccept(item.proposal!.id)
      expect(accepted.warnings).toEqual([])
      expect(fs.readFileSync(path.join(teamRoot, item.path!), "utf8")).toContain("The VPN gateway is vpn.example.com.")
      expect(memories(root)).toEqual(["lunch.md"])
      yield* memoryStatus()
      const rows = yield* (yield* MemoryStore).list({ states: ["retired"] })
      expect(rows.map((r) => [r.ref, r.reason, r.successors[0]])).toEqual([["mine//memories/vpn-old", "formalized", item.ref], ["mine//memories/vpn-new", "formalized", item.ref]])
      expect(yield* (yield* ProposalStore).get(item.proposal!.id)).toMatchObject({ recipe: "memory-formalize", status: "accepted" })
    }).pipe(Effect.provide(layer), Effect.provide(AkmTest))
  })

  it.effect("--to without a generator says what to configure", () =>
    Effect.gen(function* () {
      yield* tierOverHigh
      const refused = failure(yield* Effect.exit(memoryConsolidate({ to: "mine2" })))
      expect(refused._tag).toBe("UsageError")
      expect(refused.message).toContain("needs a generator")
    }).pipe(Effect.provide(AkmTest)))
})
