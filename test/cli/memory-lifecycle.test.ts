import Database from "better-sqlite3"
import { Effect } from "effect"
import { existsSync, readFileSync, rmSync, statSync, writeFileSync } from "node:fs"
import { join } from "node:path"
import { afterAll, beforeAll, describe, expect, it } from "vitest"
import { makeAkmLive } from "../../src/layers/AkmLive.js"
import { remember } from "../../src/programs/remember.js"
import { makeWorkspace } from "../support/cli.js"

// Issue 23's "Done when", end to end with real processes (spec 06 §8, R-MEM-1..5).
// 120 remembers: 110 through the library (the same program the CLI runs; 120 spawns would take minutes
// on a loaded machine) and 10 as `akm remember` child processes. 40 are exact duplicates of earlier ones,
// 30 carry a past --expires; the two sets are disjoint and no duplicate's original expires.

const unique = (i: number) => `Service ${i} deploys from the runner pool number ${i} after the nightly build.`
const expiring = (i: number) => `Temporary note ${i}: the staging window ${i} is closed this week.`

interface Call { readonly text: string; readonly expires?: string }

// Originals u0..u49, duplicates of u0..u39, expired e0..e29.
const library: Array<Call> = []
const spawned: Array<Call> = []
for (let i = 0; i < 47; i++) library.push({ text: unique(i) })
for (let i = 47; i < 50; i++) spawned.push({ text: unique(i) })
for (let i = 0; i < 37; i++) library.push({ text: unique(i) })
for (let i = 37; i < 40; i++) spawned.push({ text: unique(i) })
for (let i = 0; i < 26; i++) library.push({ text: expiring(i), expires: "2020-01-01" })
for (let i = 26; i < 30; i++) spawned.push({ text: expiring(i), expires: "2020-01-01" })

describe("akm memory: the bounded-memory lifecycle", () => {
  const workspace = makeWorkspace()
  let mem = ""
  afterAll(workspace.cleanup)

  beforeAll(async () => {
    mem = workspace.folder("mem", { "memories/.keep": "" })
    rmSync(join(mem, "memories", ".keep"))
    expect((await workspace.run(["bundle", "add", mem, "--name", "mem", "--adapter", "akm"])).code).toBe(0)
    expect((await workspace.run(["config", "set", "memory.highWaterItems", "100"])).code).toBe(0)
    expect((await workspace.run(["config", "set", "memory.lowWaterItems", "60"])).code).toBe(0)
    const layer = makeAkmLive({ configDir: workspace.configDir, dataDir: workspace.dataDir, cacheDir: workspace.cacheDir, quiet: true })
    await Effect.runPromise(
      Effect.forEach(library, (call) => remember({ text: call.text, bundle: "mem", expires: call.expires }), { discard: true }).pipe(Effect.provide(layer), Effect.scoped)
    )
    for (const call of spawned) {
      const r = await workspace.run(["remember", call.text, "--bundle", "mem", ...(call.expires === undefined ? [] : ["--expires", call.expires]), "--format", "json"])
      expect(r.code, r.stderr).toBe(0)
    }
  }, 300_000)

  it("status shows the tier over high water; consolidate (no generator) brings it under low water, every retired item archived", async () => {
    const before = await workspace.run(["memory", "status", "--format", "json"])
    expect(before.code, before.stderr).toBe(0)
    const status = before.json()
    expect(status.tiers).toEqual([{ bundle: "mem", items: 120, bytes: expect.any(Number), highWaterItems: 100, lowWaterItems: 60, highWaterBytes: 52_428_800, state: "over-high" }])
    expect(status.archive).toMatchObject({ blobs: 0, bytes: 0 })

    const dry = (await workspace.run(["memory", "consolidate", "--dry-run", "--format", "json"])).json()
    expect(dry.tiers[0].after.items).toBe(50)

    const run = await workspace.run(["memory", "consolidate", "--format", "json"])
    expect(run.code, run.stderr).toBe(0)
    const tier = run.json().tiers[0]
    expect(tier.before.items).toBe(120)
    expect(tier.after.items).toBeLessThanOrEqual(60)
    expect(tier.after.items).toBe(50)
    expect(tier.retired.filter((r: { reason: string }) => r.reason === "duplicate")).toHaveLength(40)
    expect(tier.retired.filter((r: { reason: string }) => r.reason === "expired")).toHaveLength(30)
    expect(tier.proposals).toEqual([expect.objectContaining({ status: "accepted", changeClass: "mechanical" })])
    for (const item of tier.retired as ReadonlyArray<{ path: string; digest: string }>) {
      expect(existsSync(join(mem, item.path))).toBe(false)
      const blob = join(workspace.dataDir, "archive", "blobs", "sha256", item.digest.slice(0, 2), item.digest)
      expect(statSync(blob).mode & 0o777).toBe(0o600)
    }
    expect(statSync(join(workspace.dataDir, "archive", "blobs", "sha256")).mode & 0o777).toBe(0o700)

    const after = (await workspace.run(["memory", "status", "--format", "json"])).json()
    expect(after.tiers[0]).toMatchObject({ items: 50, state: "ok" })
    expect(after.archive.blobs).toBe(70)
    expect(after.archive.missing).toEqual([])
    const health = (await workspace.run(["health", "--format", "json"])).json()
    expect(health.attention.filter((a: { code: string }) => a.code.startsWith("memory"))).toEqual([])
  }, 120_000)

  it("restore brings one back through a proposal; purge --dry-run lists only eligible blobs", async () => {
    const ref = "mem//memories/temporary-note-3-the-staging-window-3-is-closed-this-week"
    const restored = await workspace.run(["memory", "restore", ref, "--format", "json"])
    expect(restored.code, restored.stderr).toBe(0)
    expect(restored.json()).toMatchObject({ ref, status: "restored", mode: "proposal", proposalId: expect.any(String) })
    expect(existsSync(join(mem, "memories", "temporary-note-3-the-staging-window-3-is-closed-this-week.md"))).toBe(true)
    const proposal = (await workspace.run(["proposal", "show", restored.json().proposalId, "--format", "json"])).json()
    expect(proposal.status ?? proposal.proposal?.status).toBe("accepted")
    // Restoring what is no longer archived says so.
    expect((await workspace.run(["memory", "restore", ref, "--format", "json"])).code).not.toBe(0)

    // Nothing is past its grace period yet.
    const none = (await workspace.run(["memory", "purge", "--dry-run", "--format", "json"])).json()
    expect(none.purged).toEqual([])
    expect(none.kept.length).toBe(69)

    // Age four retirements past the 30-day grace: one is held, one lost its successor; two are eligible.
    const db = new Database(join(workspace.dataDir, "state.db"))
    const rows = db.prepare("SELECT id, ref, successors FROM memory_archive WHERE state = 'retired' AND reason = 'duplicate' ORDER BY id LIMIT 4").all() as Array<{ id: number; ref: string; successors: string }>
    const old = new Date(Date.now() - 40 * 86_400_000).toISOString()
    for (const row of rows) db.prepare("UPDATE memory_archive SET retired_at = ? WHERE id = ?").run(old, row.id)
    db.close()
    expect((await workspace.run(["memory", "hold", rows[0]!.ref])).code).toBe(0)
    const successor = (JSON.parse(rows[1]!.successors) as Array<string>)[0]!
    rmSync(join(mem, `${successor.slice("mem//".length)}.md`))

    const dry = await workspace.run(["memory", "purge", "--dry-run", "--format", "json"])
    expect(dry.code, dry.stderr).toBe(0)
    const plan = dry.json()
    expect(plan.purged.map((p: { ref: string }) => p.ref).sort()).toEqual([rows[2]!.ref, rows[3]!.ref].sort())
    expect(plan.refused).toEqual([expect.objectContaining({ ref: rows[1]!.ref, reason: expect.stringContaining("was deleted") })])
    expect(plan.kept).toContainEqual(expect.objectContaining({ ref: rows[0]!.ref, reason: "held" }))

    const real = (await workspace.run(["memory", "purge", "--format", "json"])).json()
    expect(real.purged).toHaveLength(2)
    // The held one and the one whose successor is gone are still restorable.
    expect((await workspace.run(["memory", "purge", "--dry-run", "--format", "json"])).json().purged).toEqual([])
  }, 120_000)

  it("a read-only bundle's retired item leaves default search and comes back when its upstream bytes change", async () => {
    const text = (t: string) => `---\ndescription: ${t}\n---\n# ${t}\n\n${t}\n`
    const ro = workspace.folder("ro", {
      "memories/zebra-crossing.md": text("Zebra crossings on the campus need a warden"),
      "memories/zebra-crossing-copy.md": text("Zebra crossings on the campus need a warden"),
      "memories/other.md": text("Something else entirely")
    })
    expect((await workspace.run(["bundle", "add", ro, "--name", "ro", "--adapter", "akm", "--read-only"])).code).toBe(0)
    const refs = async () => ((await workspace.run(["search", "zebra warden", "--bundle", "ro", "--format", "json"])).json().hits as Array<{ ref: string }>).map((h) => h.ref).sort()
    expect(await refs()).toEqual(["ro//memories/zebra-crossing", "ro//memories/zebra-crossing-copy"])

    const run = await workspace.run(["memory", "consolidate", "--bundle", "ro", "--format", "json"])
    expect(run.code, run.stderr).toBe(0)
    expect(run.json().tiers[0]).toMatchObject({ mode: "overlay", retired: [expect.objectContaining({ ref: expect.stringMatching(/^ro\/\/memories\/zebra-crossing/) })] })
    const hidden = run.json().tiers[0].retired[0].ref as string
    expect(readFileSync(join(ro, `${hidden.slice("ro//".length)}.md`), "utf8")).toContain("Zebra")
    expect(await refs()).toEqual(["ro//memories/zebra-crossing", "ro//memories/zebra-crossing-copy"].filter((r) => r !== hidden))
    // A full reindex keeps it hidden: the overlay still matches the bytes.
    expect((await workspace.run(["index", "--full"])).code).toBe(0)
    expect(await refs()).not.toContain(hidden)

    // Upstream changes the bytes: the overlay no longer applies.
    const file = join(ro, `${hidden.slice("ro//".length)}.md`)
    writeFileSync(file, `${readFileSync(file, "utf8")}\nThe warden starts at 8am.\n`)
    expect((await workspace.run(["index"])).code).toBe(0)
    expect(await refs()).toContain(hidden)
  }, 120_000)
})
