import * as fs from "node:fs"
import * as path from "node:path"
import { describe, expect, it } from "@effect/vitest"
import { Effect, Either, Layer } from "effect"
import { GeneratorAgent, markPacketSubmitted, packetCandidates, readPacket } from "../../../src/layers/generator/AgentPackets.js"
import { Generator } from "../../../src/services/Generator.js"
import { Redactor } from "../../../src/services/Redactor.js"
import { WorkspaceConfig } from "../../../src/services/WorkspaceConfig.js"
import { generatorDeps, sampleRequest } from "../../support/generatorHarness.js"

/** The agent generator's work packets (spec 06 §5) and the helpers `akm proposal submit` uses. */

const agentLayer = GeneratorAgent.pipe(Layer.provideMerge(generatorDeps()))

const writeOne = (request = sampleRequest()) =>
  Effect.gen(function* () {
    const result = yield* (yield* Generator).generate(request)
    if (result._tag !== "Packet") throw new Error("expected a packet")
    return result
  })

const put = (dir: string, rel: string, content: string | Buffer) => {
  fs.mkdirSync(path.dirname(path.join(dir, "out", rel)), { recursive: true })
  fs.writeFileSync(path.join(dir, "out", rel), content)
}

describe("agent work packets", () => {
  it.live("writes packet.json (0600), TASK.md with context, evidence, targets, allowed paths and the submit command, and an empty out/", () =>
    Effect.gen(function* () {
      const packet = yield* writeOne()
      const workspace = yield* WorkspaceConfig
      expect(path.dirname(packet.dir)).toBe(workspace.paths.packetsDir)
      expect(fs.statSync(path.join(packet.dir, "packet.json")).mode & 0o777).toBe(0o600)
      const manifest = yield* readPacket(packet.id)
      expect(manifest).toMatchObject({ version: 1, id: packet.id, recipe: "revise", bundle: "notes", status: "open", allowedPaths: ["knowledge/deploy.md"], evidenceIds: ["ev-1"] })
      expect(manifest.targets[0]?.beforeHash).toMatch(/^[0-9a-f]{64}$/)
      const task = fs.readFileSync(path.join(packet.dir, "TASK.md"), "utf8")
      expect(task).toContain("the deploy steps miss the migration step")
      expect(task).toContain("1. build")
      expect(task).toContain("- knowledge/deploy.md")
      expect(task).toContain(`akm proposal submit ${packet.id}`)
      expect(fs.readdirSync(path.join(packet.dir, "out"))).toEqual([])
    }).pipe(Effect.provide(agentLayer)))

  it.live("the same attempt (fingerprint) finds its packet instead of writing a second", () =>
    Effect.gen(function* () {
      const request = sampleRequest()
      const first = yield* writeOne(request)
      put(first.dir, "knowledge/deploy.md", "kept")
      const second = yield* writeOne(request)
      expect(second).toEqual(first)
      expect(fs.readFileSync(path.join(first.dir, "out/knowledge/deploy.md"), "utf8")).toBe("kept")
      expect(fs.readdirSync(path.dirname(first.dir))).toEqual([first.id])
    }).pipe(Effect.provide(agentLayer)))

  it.live("TASK.md passes the redactor (R-GEN-1)", () =>
    Effect.gen(function* () {
      const canary = "canary-Pk7wQ2rT9vXm4"
      yield* (yield* Redactor).storeValues("notes", [canary])
      const packet = yield* writeOne(sampleRequest({ targets: [{ bundle: "notes", path: "knowledge/deploy.md", content: `token ${canary}` }] }))
      expect(fs.readFileSync(path.join(packet.dir, "TASK.md"), "utf8")).not.toContain(canary)
    }).pipe(Effect.provide(agentLayer)))

  it.live("packetCandidates reads out/; markPacketSubmitted records the proposal", () =>
    Effect.gen(function* () {
      const packet = yield* writeOne(sampleRequest({ allowedPaths: ["knowledge/deploy.md", "knowledge/new/*.md"] }))
      put(packet.dir, "knowledge/deploy.md", "# Deploy\n1. migrate\n")
      put(packet.dir, "knowledge/new/rollback.md", "# Rollback\n")
      expect(yield* packetCandidates(packet.id)).toEqual([
        { path: "knowledge/deploy.md", content: "# Deploy\n1. migrate\n" },
        { path: "knowledge/new/rollback.md", content: "# Rollback\n" }
      ])
      const marked = yield* markPacketSubmitted(packet.id, "prop-123")
      expect(marked).toMatchObject({ status: "submitted", proposalId: "prop-123" })
      expect(yield* readPacket(packet.id)).toEqual(marked)
      expect(fs.statSync(path.join(packet.dir, "packet.json")).mode & 0o777).toBe(0o600)
    }).pipe(Effect.provide(agentLayer)))

  it.live("refuses a path outside allowedPaths, a symlink, a non-UTF-8 file, an oversize file and an empty out/", () =>
    Effect.gen(function* () {
      const reasonOf = (id: string, maxBytes?: number) =>
        Effect.map(Effect.either(packetCandidates(id, { maxBytes })), (e) => (Either.isLeft(e) ? e.left.reason : "accepted"))

      const empty = yield* writeOne()
      expect(yield* reasonOf(empty.id)).toContain("no candidate file")

      const outside = yield* writeOne()
      put(outside.dir, "knowledge/deploy.md", "ok")
      put(outside.dir, "skills/evil/SKILL.md", "x")
      expect(yield* reasonOf(outside.id)).toContain("skills/evil/SKILL.md is not a path this packet may write")

      const link = yield* writeOne()
      fs.mkdirSync(path.join(link.dir, "out", "knowledge"), { recursive: true })
      fs.symlinkSync("/etc/passwd", path.join(link.dir, "out", "knowledge", "deploy.md"))
      expect(yield* reasonOf(link.id)).toContain("knowledge/deploy.md is a symbolic link")

      const binary = yield* writeOne()
      put(binary.dir, "knowledge/deploy.md", Buffer.from([0xff, 0xfe, 0x00, 0xc3]))
      expect(yield* reasonOf(binary.id)).toContain("not UTF-8 text")

      const big = yield* writeOne()
      put(big.dir, "knowledge/deploy.md", "x".repeat(2048))
      expect(yield* reasonOf(big.id, 1024)).toContain("over 1024 bytes")
    }).pipe(Effect.provide(agentLayer)))

  it.live("an unknown, damaged or path-like packet id is a PacketError with a hint", () =>
    Effect.gen(function* () {
      for (const id of ["pk-0000000000000000", "../../etc", ""]) {
        const error = yield* Effect.flip(readPacket(id))
        expect(error._tag).toBe("PacketError")
        expect(error.hint).not.toBe("")
      }
      const packet = yield* writeOne()
      fs.writeFileSync(path.join(packet.dir, "packet.json"), "{ truncated")
      expect((yield* Effect.flip(readPacket(packet.id))).reason).toContain("damaged")
    }).pipe(Effect.provide(agentLayer)))
})
