import * as fs from "node:fs"
import * as path from "node:path"
import { afterAll, beforeAll, describe, expect, it } from "vitest"
import { makeWorkspace, type Workspace } from "../support/cli.js"

/**
 * Issue 13 item 1 through the CLI: a proposal never reaches .git/, and a
 * bundle root never overlaps akm's config, data or cache dir (R-WS-1) —
 * except $AKM_DATA_DIR/bundles/<name>/, where `bundle create` puts bundles.
 */
describe("write targets through the CLI", () => {
  let ws: Workspace
  let kb: string
  beforeAll(async () => {
    ws = makeWorkspace()
    kb = ws.folder("kb", { "knowledge/a.md": "---\ndescription: A note\n---\n# A\n\nAbout caching.\n", ".git/config": "[core]\n\tbare = false\n" })
    ws.folder("drafts", { "evil": "[core]\n\thooksPath = /tmp/evil\n" })
    expect((await ws.run(["init"])).code).toBe(0)
    expect((await ws.run(["bundle", "add", kb, "--name", "kb", "--adapter", "akm"])).code).toBe(0)
  }, 120_000)
  afterAll(() => ws.cleanup())

  it("proposal new refuses a path under .git/ and .git/config stays as it was", async () => {
    const made = await ws.run(["proposal", "new", "--bundle", "kb", "--file", ".git/config=@drafts/evil", "--title", "hooks"])
    const id = /\b[0-9a-f]{8}\b/.exec(made.stdout)?.[0]
    if (made.code === 0 && id !== undefined) await ws.run(["proposal", "accept", id, "-y"])
    expect(made.code).toBe(2)
    expect(made.stderr + made.stdout).toMatch(/version-control metadata/)
    expect(fs.readFileSync(path.join(kb, ".git/config"), "utf8")).toBe("[core]\n\tbare = false\n")
  }, 60_000)

  it.each([
    ["inside the data dir", (w: Workspace) => path.join(w.dataDir, "mine")],
    ["inside the config dir", (w: Workspace) => path.join(w.configDir, "mine")],
    ["inside the cache dir", (w: Workspace) => path.join(w.cacheDir, "mine")],
    ["containing the config dir", (w: Workspace) => w.root]
  ])("bundle add refuses a root %s", async (_what, dirOf) => {
    const dir = dirOf(ws)
    fs.mkdirSync(dir, { recursive: true })
    const added = await ws.run(["bundle", "add", dir, "--name", "overlap", "--adapter", "akm"])
    expect(added.code).not.toBe(0)
    expect(added.stderr).toMatch(/akm (config|data|cache) directory/)
    expect((await ws.run(["config", "get", "bundles.overlap"])).code).not.toBe(0)
  }, 60_000)

  it("bundle create --dir refuses the config dir, and bundle create without --dir works under the data dir", async () => {
    const refused = await ws.run(["bundle", "create", "inconfig", "--dir", path.join(ws.configDir, "inconfig")])
    expect(refused.code).not.toBe(0)
    expect(refused.stderr).toMatch(/akm config directory/)
    expect((await ws.run(["bundle", "create", "managed"])).code).toBe(0)
  }, 60_000)

  it("config set bundles.* refuses a folder inside the data dir's state", async () => {
    const set = await ws.run(["config", "set", "bundles.kb.source.path", path.join(ws.dataDir, "archive")])
    expect(set.code).not.toBe(0)
    expect(set.stderr).toMatch(/akm data directory/)
    expect((await ws.run(["config", "get", "bundles.kb.source.path"])).stdout).toContain(kb)
    const ok = await ws.run(["config", "set", "bundles.kb.source.path", kb])
    expect(ok.code).toBe(0)
  }, 60_000)
})
