import * as fs from "node:fs"
import * as path from "node:path"
import { afterAll, beforeAll, describe, expect, it } from "vitest"
import { makeWorkspace, type Workspace } from "../support/cli.js"
import { runCrashCli } from "../support/crashCli.js"
import { startModelStub, type ModelStub } from "../support/modelStub.js"
import { bundleChild } from "../support/txHarness.js"

/**
 * R-TX-9 for `akm memory consolidate --to <bundle>`, through real child
 * processes: the formalisation's accept is SIGKILLed before the publish and
 * between the two phases. Each bundle is always consistent — the sources are
 * never gone without the new item in place — and the next command finishes
 * the move. The generator is an openai-compatible stub on 127.0.0.1.
 */
const OLD = "---\nobservedAt: 2026-01-05T10:00:00Z\n---\nThe office VPN listens on port 1194.\nThe VPN gateway is vpn.example.com.\n"
const NEW = "---\nobservedAt: 2026-03-01T09:00:00Z\n---\nThe office VPN listens on port 51820.\n"
const ITEM = "# Office VPN\n\nUntil 2026-03-01: The office VPN listens on port 1194; since 2026-03-01: The office VPN listens on port 51820.\nThe VPN gateway is vpn.example.com.\n"

describe("crash during a memory formalisation (two-phase)", () => {
  let entry: Awaited<ReturnType<typeof bundleChild>>
  let stub: ModelStub
  const open: Array<Workspace> = []
  beforeAll(async () => {
    entry = await bundleChild("cliWithCrashPoints")
    stub = await startModelStub([{ kind: "answer", output: { files: [{ path: "knowledge/office-vpn.md", content: ITEM }], rationale: "one item for the VPN" } }])
  }, 120_000)
  afterAll(async () => {
    entry.dispose()
    await stub.close()
    for (const ws of open) ws.cleanup()
  })

  const noKeys = { OPENAI_API_KEY: "", ANTHROPIC_API_KEY: "", AKM_GENERATOR_API_KEY: "" }

  const setup = async () => {
    const ws = makeWorkspace()
    open.push(ws)
    const mine = ws.folder("mine", { "memories/vpn-old.md": OLD, "memories/vpn-new.md": NEW, "memories/lunch.md": "Lunch is served at noon in the cafeteria.\n" })
    const team = ws.folder("team", { "knowledge/readme.md": "---\ndescription: Team knowledge\n---\n# Team\n\nShared notes.\n" })
    expect((await ws.run(["init"])).code).toBe(0)
    expect((await ws.run(["bundle", "add", mine, "--name", "mine", "--adapter", "akm"])).code).toBe(0)
    expect((await ws.run(["bundle", "add", team, "--name", "team", "--adapter", "akm"])).code).toBe(0)
    const file = path.join(ws.configDir, "config.yaml")
    fs.writeFileSync(file, `${fs.readFileSync(file, "utf8")}improve:\n  generator: { kind: openai-compatible, baseUrl: "${stub.url}/v1", model: stub }\n`)
    const run = await ws.run(["memory", "consolidate", "--bundle", "mine", "--to", "team", "--format", "json"], { env: noKeys })
    expect(run.code, run.stderr).toBe(0)
    const item = run.json<{ tiers: Array<{ consolidated: Array<{ path: string; retired: Array<string>; proposal: { id: string; status: string } }> }> }>().tiers[0]!.consolidated[0]!
    expect(item.retired).toEqual(["mine//memories/vpn-old", "mine//memories/vpn-new"])
    expect(item.proposal.status).toBe("pending")
    const state = () => ({
      sources: ["vpn-old.md", "vpn-new.md"].filter((f) => fs.existsSync(path.join(mine, "memories", f))),
      published: fs.existsSync(path.join(team, item.path))
    })
    return { ws, item, state }
  }

  const cases: ReadonlyArray<[string, { readonly sources: ReadonlyArray<string>; readonly published: boolean }]> = [
    ["after-retire-record", { sources: ["vpn-old.md", "vpn-new.md"], published: false }],
    ["after-publish", { sources: ["vpn-old.md", "vpn-new.md"], published: true }]
  ]
  for (const [point, between] of cases) {
    it(`SIGKILL at ${point}: never a loss, and the next command finishes the move`, async () => {
      const { ws, item, state } = await setup()
      const crashed = await runCrashCli(entry.script, ws, ["proposal", "accept", item.proposal.id, "-y"], point)
      expect(crashed.signal).toBe("SIGKILL")
      expect(crashed.crashedAt).toBe(`${point}#1`)
      // Between the phases both bundles hold whole files: the sources are all there, the item is all there or absent.
      expect(state()).toEqual(between)
      // The next accept recovers first: a publish that landed has its retire resumed; one that did not is applied now.
      const next = await ws.run(["proposal", "accept", item.proposal.id, "-y"])
      expect([0, 1], next.stderr).toContain(next.code)
      expect(state()).toEqual({ sources: [], published: true })
      const shown = (await ws.run(["proposal", "show", item.proposal.id])).json<{ status: string }>()
      expect(shown.status).toBe("accepted")
      const status = (await ws.run(["memory", "status", "--format", "json"])).json<{ archive: { blobs: number; missing: Array<unknown> } }>()
      expect(status.archive).toMatchObject({ blobs: 2, missing: [] })
      // The accepted record covers both phases, however recovery finished them: a revert removes the item and puts every source back.
      const reverted = await ws.run(["proposal", "revert", item.proposal.id, "--format", "json"])
      expect(reverted.code, reverted.stderr).toBe(0)
      expect(state()).toEqual({ sources: ["vpn-old.md", "vpn-new.md"], published: false })
    }, 300_000)
  }
})
