import { existsSync, mkdirSync, readFileSync, readdirSync, writeFileSync } from "node:fs"
import { dirname, join } from "node:path"
import { afterAll, beforeAll, describe, expect, it } from "vitest"
import { makeWorkspace } from "../support/cli.js"

// `akm memory consolidate` with the agent generator (decision 0047): the work packet it writes is
// completed by `akm proposal submit`, which runs the claim check and proposes the consolidation;
// accepting it retires the covered sources into the archive. Real processes, no test seam.

const OLD = "---\nobservedAt: 2026-01-05T10:00:00Z\n---\nThe office VPN listens on port 1194.\nThe VPN gateway is vpn.example.com.\n"
const NEW = "---\nobservedAt: 2026-03-01T09:00:00Z\n---\nThe office VPN listens on port 51820.\n"
const OTHER = "---\nobservedAt: 2026-01-01T00:00:00Z\n---\nLunch is served at noon in the cafeteria.\n"
const ANSWER = "# Office VPN\n\nUntil 2026-03-01: The office VPN listens on port 1194; since 2026-03-01: The office VPN listens on port 51820.\nThe VPN gateway is vpn.example.com.\n"

describe("akm memory consolidate with the agent generator", () => {
  const ws = makeWorkspace()
  let mem = ""
  afterAll(ws.cleanup)

  beforeAll(async () => {
    mem = ws.folder("mem", { "memories/vpn-old.md": OLD, "memories/vpn-new.md": NEW, "memories/lunch.md": OTHER })
    for (const args of [
      ["bundle", "add", mem, "--name", "mem", "--adapter", "akm"],
      ["config", "set", "memory.highWaterItems", "2"],
      ["config", "set", "memory.lowWaterItems", "1"],
      ["config", "set", "improve.generator.kind", "agent"]
    ]) {
      const r = await ws.run(args)
      expect(r.code, `${args.join(" ")}: ${r.stderr}`).toBe(0)
    }
  }, 300_000)

  it("the packet consolidate writes is completed by proposal submit: claim check, proposal, sources retired on accept", async () => {
    const run = await ws.run(["memory", "consolidate", "--format", "json"])
    expect(run.code, run.stderr).toBe(0)
    const item = run.json().tiers[0].consolidated[0]
    expect(item).toMatchObject({ outcome: "compact", retired: [], packet: expect.stringMatching(/^pk-/), skipped: expect.stringContaining("akm proposal submit") })
    const packet = join(ws.dataDir, "packets", item.packet)
    expect(readFileSync(join(packet, "TASK.md"), "utf8")).toContain("The VPN gateway is vpn.example.com.")
    // A second pass does not write a second packet for the same group.
    const again = await ws.run(["memory", "consolidate", "--format", "json"])
    expect(again.json().tiers[0].consolidated[0].packet).toBe(item.packet)

    // The agent answers.
    const out = join(packet, "out", item.path)
    mkdirSync(dirname(out), { recursive: true })
    writeFileSync(out, ANSWER)
    const submitted = await ws.run(["proposal", "submit", item.packet, "--format", "json"])
    expect(submitted.code, submitted.stderr).toBe(0)
    expect(submitted.json()).toMatchObject({ packetId: item.packet, outcome: "proposed", proposalId: expect.any(String), failures: [], metrics: { retired: 2, kept: 0 } })
    const id = submitted.json().proposalId as string
    // A semantic consolidation waits for review; nothing moved yet, and the packet is done.
    expect(readdirSync(join(mem, "memories")).sort()).toEqual(["lunch.md", "vpn-new.md", "vpn-old.md"])
    expect(JSON.parse(readFileSync(join(packet, "packet.json"), "utf8"))).toMatchObject({ status: "submitted", proposalId: id })
    const twice = await ws.run(["proposal", "submit", item.packet, "--format", "json"])
    expect(twice.code).not.toBe(0)

    const accepted = await ws.run(["proposal", "accept", id, "-y", "--format", "json"])
    expect(accepted.code, accepted.stderr).toBe(0)
    expect(readdirSync(join(mem, "memories")).sort()).toEqual(["lunch.md", item.path.split("/").pop()].sort())
    expect(readFileSync(join(mem, item.path), "utf8")).toContain("The VPN gateway is vpn.example.com.")
    // The next memory command records both retirements; restore brings one back from the archive.
    const status = await ws.run(["memory", "status", "--format", "json"])
    expect(status.json().archive.blobs).toBeGreaterThanOrEqual(2)
    const restored = await ws.run(["memory", "restore", "mem//memories/vpn-old", "--format", "json"])
    expect(restored.code, restored.stderr).toBe(0)
    expect(readFileSync(join(mem, "memories", "vpn-old.md"), "utf8")).toBe(OLD)
  }, 300_000)

  it("a packet whose sources changed since it was written is refused and changes nothing", async () => {
    writeFileSync(join(mem, "memories", "cache-a.md"), "---\nobservedAt: 2026-02-01T00:00:00Z\n---\nThe build cache lives on the runner disk under /var/cache/build.\n")
    writeFileSync(join(mem, "memories", "cache-b.md"), "---\nobservedAt: 2026-02-02T00:00:00Z\n---\nThe build cache lives on the runner disk and is wiped weekly.\n")
    const run = await ws.run(["memory", "consolidate", "--format", "json"])
    expect(run.code, run.stderr).toBe(0)
    const item = (run.json().tiers[0].consolidated as ReadonlyArray<{ packet?: string; path?: string; sources: ReadonlyArray<string> }>).find((i) => i.packet !== undefined && i.sources.includes("mem//memories/cache-a"))
    expect(item).toBeDefined()
    writeFileSync(join(mem, "memories", "cache-a.md"), "---\nobservedAt: 2026-02-01T00:00:00Z\n---\nThe build cache moved to the object store.\n")
    const out = join(ws.dataDir, "packets", item!.packet!, "out", item!.path!)
    mkdirSync(dirname(out), { recursive: true })
    writeFileSync(out, "# Build cache\n\nThe build cache lives on the runner disk under /var/cache/build and is wiped weekly.\n")
    const before = readdirSync(join(mem, "memories")).sort()
    const submitted = await ws.run(["proposal", "submit", item!.packet!, "--format", "json"])
    expect(submitted.code).not.toBe(0)
    expect(submitted.stderr + submitted.stdout).toContain("changed or was retired since packet")
    expect(readdirSync(join(mem, "memories")).sort()).toEqual(before)
    expect(existsSync(join(mem, item!.path!))).toBe(false)
  }, 300_000)
})
