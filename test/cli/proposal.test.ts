import { readFileSync, writeFileSync } from "node:fs"
import { join } from "node:path"
import { afterAll, beforeAll, describe, expect, it } from "vitest"
import { makeWorkspace } from "../support/cli.js"

// akm proposal list|show|diff|accept|reject|revert|new end to end (issue 7, spec 05 §3).

const SETUP = "---\ndescription: Setup\n---\n\n# Setup\n\nold step\n"

describe("akm proposal", () => {
  const workspace = makeWorkspace()
  afterAll(workspace.cleanup)
  let root = ""

  beforeAll(async () => {
    const created = await workspace.run(["bundle", "create", "mine", "--set-default"])
    expect(created.code, created.stderr).toBe(0)
    root = created.json().root
  })

  it("akm remember writes a memory through an accepted proposal that proposal list shows", async () => {
    const r = await workspace.run(["remember", "Staging needs the VPN. Otherwise requests time out.", "--tag", "staging"])
    expect(r.code, r.stderr).toBe(0)
    const result = r.json()
    expect(result).toEqual({
      schemaVersion: 1,
      id: expect.stringMatching(/^[0-9a-f-]{36}$/),
      status: "accepted",
      title: "Remember: Staging needs the VPN",
      bundle: "mine",
      ref: "mine//memories/staging-needs-the-vpn",
      path: join(root, "memories/staging-needs-the-vpn.md"),
      files: ["memories/staging-needs-the-vpn.md"]
    })
    expect(readFileSync(result.path, "utf8")).toContain("Otherwise requests time out.")
    const listed = await workspace.run(["proposal", "list"])
    expect(listed.code, listed.stderr).toBe(0)
    expect(listed.json()).toEqual({
      schemaVersion: 1,
      proposals: [{
        id: result.id,
        title: "Remember: Staging needs the VPN",
        recipe: "remember",
        status: "accepted",
        changeClass: "mechanical",
        createdAt: expect.any(String),
        files: [{ bundle: "mine", path: "memories/staging-needs-the-vpn.md", action: "create" }]
      }]
    })
  })

  it("show (JSON and text) and diff (the raw unified diff) by short id", async () => {
    const [latest] = (await workspace.run(["proposal", "list"])).json().proposals
    const short = latest.id.slice(0, 8)
    const shown = await workspace.run(["proposal", "show", short])
    expect(shown.code, shown.stderr).toBe(0)
    expect(shown.json()).toMatchObject({
      id: latest.id,
      status: "accepted",
      decidedBy: "policy",
      evidence: [{ kind: "user", id: "remember" }],
      evaluation: { verdict: "pass", diagnostics: [] },
      files: [{ bundle: "mine", path: "memories/staging-needs-the-vpn.md", action: "create", beforeHash: null, afterHash: expect.stringMatching(/^[0-9a-f]{64}$/), diff: expect.stringContaining("+++ b/memories/staging-needs-the-vpn.md") }],
      outcomes: [{ kind: "accepted", changes: [{ bundle: "mine", path: "memories/staging-needs-the-vpn.md", beforeHash: null }] }]
    })
    const text = await workspace.run(["proposal", "show", short, "--format", "text"])
    expect(text.stdout).toContain("status       accepted by policy")
    const diff = await workspace.run(["proposal", "diff", short, "--format", "text"])
    expect(diff.code).toBe(0)
    expect(diff.stdout.startsWith("--- /dev/null\n+++ b/memories/staging-needs-the-vpn.md\n@@ -0,0 +1,")).toBe(true)
    expect(diff.stdout).toContain("+Staging needs the VPN. Otherwise requests time out.\n")
  })

  it("revert removes what the proposal created and restores what it replaced", async () => {
    const draft = workspace.folder("drafts", { "setup.md": SETUP.replace("old step", "new step") })
    writeFileSync(join(root, "setup.md"), SETUP)
    const made = await workspace.run(["proposal", "new", "--bundle", "mine", "--file", `setup.md=@${join(draft, "setup.md")}`, "--title", "New setup step"])
    expect(made.code, made.stderr).toBe(0)
    expect(made.json()).toMatchObject({ id: expect.any(String), status: "pending", recipe: "manual", changeClass: "semantic", files: [{ path: "setup.md", action: "update" }] })
    const id = made.json().id as string
    const accepted = await workspace.run(["proposal", "accept", id.slice(0, 8), "-y"])
    expect(accepted.code, accepted.stderr).toBe(0)
    expect(accepted.json()).toMatchObject({ id, status: "accepted", changes: [{ path: "setup.md", backup: expect.stringMatching(/^[0-9a-f]{64}$/) }] })
    expect(readFileSync(join(root, "setup.md"), "utf8")).toContain("new step")
    const reverted = await workspace.run(["proposal", "revert", id])
    expect(reverted.code, reverted.stderr).toBe(0)
    expect(reverted.json()).toMatchObject({ id, status: "reverted" })
    expect(readFileSync(join(root, "setup.md"), "utf8")).toBe(SETUP)
    const again = await workspace.run(["proposal", "revert", id])
    expect(again.code).toBe(1)
    expect(again.error().error.code).toBe("conflict")
  })

  it("editing the file after the proposal was made makes accept fail naming the file", async () => {
    writeFileSync(join(root, "stale.md"), SETUP)
    const draft = workspace.folder("drafts-stale", { "stale.md": SETUP.replace("old step", "proposed step") })
    const made = await workspace.run(["proposal", "new", "--bundle", "mine", "--file", `stale.md=@${join(draft, "stale.md")}`, "--title", "Stale"])
    const id = made.json().id as string
    writeFileSync(join(root, "stale.md"), "my own edit\n")
    const accepted = await workspace.run(["proposal", "accept", id, "-y"])
    expect(accepted.code).toBe(1)
    expect(accepted.stdout).toBe("")
    const error = accepted.error().error
    expect(error.code).toBe("stale_before_hash")
    expect(error.message).toContain("stale.md")
    expect(readFileSync(join(root, "stale.md"), "utf8")).toBe("my own edit\n")
    expect((await workspace.run(["proposal", "show", id])).json()).toMatchObject({ status: "failed", outcomes: [{ kind: "failed", error: { tag: "StaleBeforeHash", path: "stale.md" } }] })
  })

  it("reject requires a reason; list is newest first and filters by status", async () => {
    const policy = await workspace.run(["config", "set", "policy.autoApply", "[]"])
    expect(policy.code, policy.stderr).toBe(0)
    const first = (await workspace.run(["remember", "first pending note"])).json()
    const second = (await workspace.run(["remember", "second pending note"])).json()
    expect([first.status, second.status]).toEqual(["pending", "pending"])
    const noReason = await workspace.run(["proposal", "reject", first.id])
    expect(noReason.code).toBe(2)
    const rejected = await workspace.run(["proposal", "reject", first.id, "--reason", "not needed"])
    expect(rejected.code, rejected.stderr).toBe(0)
    expect(rejected.json()).toEqual({ schemaVersion: 1, id: first.id, title: first.title, status: "rejected", reason: "not needed" })
    const all = (await workspace.run(["proposal", "list"])).json().proposals.map((p: { id: string }) => p.id)
    expect(all.slice(0, 2)).toEqual([second.id, first.id])
    const pending = (await workspace.run(["proposal", "list", "--status", "pending", "--recipe", "remember"])).json().proposals
    expect(pending.map((p: { id: string }) => p.id)).toEqual([second.id])
    const text = await workspace.run(["proposal", "list", "--format", "text"])
    expect(text.stdout.split("\n")[0]).toMatch(/^ID\s+STATUS\s+RECIPE\s+CLASS\s+CREATED\s+FILES\s+TITLE$/)
    const jsonl = (await workspace.run(["proposal", "list", "--format", "jsonl"])).stdout.trim().split("\n").map((l) => JSON.parse(l))
    expect(jsonl[0]).toMatchObject({ schemaVersion: 1, id: second.id, status: "pending" })
    const accept = await workspace.run(["proposal", "accept", second.id.slice(0, 8), "-y", "--format", "text"])
    expect(accept.code, accept.stderr).toBe(0)
    expect(accept.stdout).toContain(`✓ accepted ${second.id.slice(0, 8)}`)
  })

  it("two processes accepting at once serialise: one proposal is applied once, a competing one fails stale", async () => {
    writeFileSync(join(root, "race.md"), SETUP)
    const drafts = workspace.folder("drafts-race", { "a.md": SETUP.replace("old step", "step A"), "b.md": SETUP.replace("old step", "step B") })
    const a = (await workspace.run(["proposal", "new", "--bundle", "mine", "--file", `race.md=@${join(drafts, "a.md")}`, "--title", "A"])).json().id as string
    const b = (await workspace.run(["proposal", "new", "--bundle", "mine", "--file", `race.md=@${join(drafts, "b.md")}`, "--title", "B"])).json().id as string
    const same = await Promise.all([workspace.run(["proposal", "accept", a, "-y"]), workspace.run(["proposal", "accept", a, "-y"])])
    expect(same.map((r) => r.code).sort()).toEqual([0, 1])
    expect(same.find((r) => r.code === 1)!.error().error.code).toBe("conflict")
    expect(readFileSync(join(root, "race.md"), "utf8")).toContain("step A")
    const competing = await workspace.run(["proposal", "accept", b, "-y"])
    expect(competing.code).toBe(1)
    expect(competing.error().error).toMatchObject({ code: "stale_before_hash", message: expect.stringContaining("race.md") })
    expect(readFileSync(join(root, "race.md"), "utf8")).toContain("step A")
    const outcomes = (await workspace.run(["proposal", "show", a])).json().outcomes
    expect(outcomes.map((o: { kind: string }) => o.kind)).toEqual(["accepted"])
  })

  it("unknown ids are not found (exit 1); ids shorter than 8 characters are usage errors (exit 2)", async () => {
    const unknown = await workspace.run(["proposal", "show", "00000000"])
    expect(unknown.code).toBe(1)
    expect(unknown.error().error.code).toBe("not_found")
    const short = await workspace.run(["proposal", "accept", "abc"])
    expect(short.code).toBe(2)
    expect(short.error().error.code).toBe("usage")
    const badStatus = await workspace.run(["proposal", "list", "--status", "maybe"])
    expect(badStatus.code).toBe(2)
  })
})
