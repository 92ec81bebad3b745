import * as fs from "node:fs"
import * as path from "node:path"
import { afterAll, beforeAll, describe, expect, it } from "vitest"
import { makeWorkspace, type Workspace } from "../support/cli.js"
import { startModelStub, type ModelStub } from "../support/modelStub.js"

/**
 * Issue 18's "done when" through the shipped CLI (dist/), with the real
 * generator layers config.yaml names: an openai-compatible generator against a
 * chat-completions stub on 127.0.0.1, and the agent generator's work packet
 * completed by `akm proposal submit`. No test seam is involved.
 */

const ROLLBACK = "---\ndescription: Roll back a failed release of the web app\ntags: [release, rollback]\n---\n# Deploy rollback\n\nRoll back when the new release fails its checks.\n\n## Restore the previous build\n\nRun the release tool with the previous build id.\n"
const GOOD = ROLLBACK.replace("tags: [release, rollback]", "tags: [release, rollback, undo, revert]").replace("Roll back when", "Roll back (undo a bad deploy) when")
const POPULAR = `---\ndescription: Everything about the build\n---\n# Build handbook\n\n${"The build compiles, tests and packages the app. ".repeat(200)}\n`
const FILES = {
  "knowledge/deploy-rollback.md": ROLLBACK,
  "knowledge/build-handbook.md": POPULAR,
  "knowledge/database-backups.md": "---\ndescription: Nightly database backups\n---\n# Database backups\n\nBackups run at 02:00.\n",
  "knowledge/feature-flags.md": "---\ndescription: Turning features on and off\n---\n# Feature flags\n\nFlags live in the flag service.\n"
}
const REF = "notes//knowledge/deploy-rollback"
const REASON = "could not find how to undo a bad deploy"

/** Every file under a dir with its bytes' length and hash-like fingerprint (content compared byte for byte). */
const tree = (dir: string): Record<string, string> => {
  const out: Record<string, string> = {}
  const visit = (d: string, rel: string) => {
    if (!fs.existsSync(d)) return
    for (const name of fs.readdirSync(d).sort()) {
      const file = path.join(d, name)
      const key = rel === "" ? name : `${rel}/${name}`
      if (fs.statSync(file).isDirectory()) visit(file, key)
      else out[key] = fs.readFileSync(file).toString("base64")
    }
  }
  visit(dir, "")
  return out
}

const configYaml = (root: string, generator: string) =>
  `bundles:\n  notes:\n    source: { kind: filesystem, path: ${JSON.stringify(root)} }\n    adapter: akm\nimprove:\n  generator:\n${generator}`

describe("akm improve end to end (issue 18 done-when)", () => {
  let stub: ModelStub
  let ws: Workspace
  let root: string
  const noKeys = { OPENAI_API_KEY: "", ANTHROPIC_API_KEY: "", AKM_GENERATOR_API_KEY: "" }
  const run = (args: ReadonlyArray<string>) => ws.run(args, { env: noKeys })

  beforeAll(async () => {
    stub = await startModelStub([{ kind: "answer", output: { files: [{ path: "knowledge/deploy-rollback.md", content: GOOD }], rationale: "adds the words people use" } }])
    ws = makeWorkspace()
    root = ws.folder("notes", FILES)
    fs.mkdirSync(ws.configDir, { recursive: true })
    fs.writeFileSync(path.join(ws.configDir, "config.yaml"), configYaml(root, `    kind: openai-compatible\n    baseUrl: ${stub.url}/v1\n    model: stub\n`))
    expect((await run(["index", "--quiet"])).code).toBe(0)
  }, 120_000)
  afterAll(async () => {
    await stub.close()
    ws.cleanup()
  })

  it("R-IMP-1: with no evidence nothing is proposed, even for a popular, old, large item", async () => {
    for (let i = 0; i < 5; i++) expect((await run(["show", "notes//knowledge/build-handbook", "--format", "json"])).code).toBe(0)
    const r = await run(["improve", "--format", "json"])
    expect(r.code, r.stderr).toBe(0)
    expect(r.json()).toMatchObject({ _tag: "Ran", run: { proposals: [], modelCalls: 0 } })
    expect(stub.bodies).toHaveLength(0)
    expect((await run(["proposal", "list", "--format", "json"])).json()).toMatchObject({ proposals: [] })
  }, 120_000)

  it("after negative feedback, --dry-run prints the planned attempt and changes no byte of any db or file", async () => {
    expect((await run(["feedback", REF, "--negative", "--reason", REASON])).code).toBe(0)
    const before = { data: tree(ws.dataDir), config: tree(ws.configDir), cache: tree(ws.cacheDir), notes: tree(root) }
    const r = await run(["improve", "--dry-run", "--format", "text"])
    expect(r.code, r.stderr).toBe(0)
    expect(r.stdout).toContain("dry run")
    expect(r.stdout).toContain(REF)
    expect(stub.bodies).toHaveLength(0)
    expect({ data: tree(ws.dataDir), config: tree(ws.configDir), cache: tree(ws.cacheDir), notes: tree(root) }).toEqual(before)
  }, 120_000)

  it("a run against the stub creates a verified proposal that proposal show explains; an identical second run makes zero model calls", async () => {
    const first = await run(["improve", "--format", "json"])
    expect(first.code, first.stderr).toBe(0)
    const result = first.json()
    expect(result.run.modelCalls).toBe(1)
    expect(result.run.proposals).toHaveLength(1)
    expect(stub.bodies).toHaveLength(1)
    expect(stub.paths[0]).toMatch(/\/chat\/completions$/)
    const id = result.run.proposals[0] as string
    const show = await run(["proposal", "show", id.slice(0, 8), "--format", "text"])
    expect(show.code, show.stderr).toBe(0)
    expect(show.stdout).toContain("negative-feedback")
    expect(show.stdout).toContain(REASON)
    expect(show.stdout).toMatch(/pass/)
    const json = (await run(["proposal", "show", id.slice(0, 8), "--format", "json"])).json()
    expect(json.proposal?.evaluation?.verdict ?? json.evaluation?.verdict).toBe("pass")
    // The file is untouched until someone accepts: a semantic change goes to review (R-IMP-9).
    expect(fs.readFileSync(path.join(root, "knowledge/deploy-rollback.md"), "utf8")).toBe(ROLLBACK)
    const second = await run(["improve", "--format", "json"])
    expect(second.code, second.stderr).toBe(0)
    expect(second.json().run.modelCalls).toBe(0)
    expect(stub.bodies).toHaveLength(1)
    const runs = await run(["improve", "runs", "--last", "5", "--format", "json"])
    expect(runs.code, runs.stderr).toBe(0)
    expect(runs.json().runs.length).toBeGreaterThanOrEqual(3)
  }, 180_000)

  it("the agent generator writes a work packet that proposal submit completes", async () => {
    fs.writeFileSync(path.join(ws.configDir, "config.yaml"), configYaml(root, "    kind: agent\n"))
    const r = await run(["improve", "--force", "--format", "json"])
    expect(r.code, r.stderr).toBe(0)
    const packet = (r.json().run.targets as ReadonlyArray<{ packetId?: string }>).find((t) => t.packetId !== undefined)?.packetId
    expect(packet).toBeDefined()
    const dir = path.join(ws.dataDir, "packets", packet!)
    expect(fs.readFileSync(path.join(dir, "TASK.md"), "utf8")).toContain("akm proposal submit")
    fs.mkdirSync(path.join(dir, "out", "knowledge"), { recursive: true })
    fs.writeFileSync(path.join(dir, "out", "knowledge", "deploy-rollback.md"), GOOD)
    const submitted = await run(["proposal", "submit", packet!, "--format", "json"])
    expect(submitted.code, submitted.stderr).toBe(0)
    expect(JSON.stringify(submitted.json())).toMatch(/pass/)
  }, 180_000)

  it("R-IMP-6: a dry run in a workspace that does not exist yet creates nothing (no state.db, no folder)", async () => {
    const fresh = makeWorkspace()
    try {
      const r = await fresh.run(["improve", "--dry-run", "--format", "json"], { env: noKeys })
      expect(r.code, r.stderr).toBe(0)
      expect(r.json()).toMatchObject({ _tag: "Ran", run: { dryRun: true, targets: [] } })
      for (const dir of [fresh.configDir, fresh.dataDir, fresh.cacheDir]) expect(fs.existsSync(dir), dir).toBe(false)
    } finally {
      fresh.cleanup()
    }
  }, 60_000)
})
