import { execFile } from "node:child_process"
import { existsSync, mkdirSync, readFileSync, writeFileSync } from "node:fs"
import { join } from "node:path"
import { afterAll, beforeAll, describe, expect, it } from "vitest"
import { makeWorkspace, repoRoot, type Workspace } from "../support/cli.js"

// Issue 15 item 5, output correctness, end to end through the built CLI: heading anchors (R-REF-7, GitHub
// slugs), tags as written, `editable` after `config set`, health's status column, `show --max-tokens`, revert's
// directories.

const GA = [
  "---",
  "title: GA notes",
  "tags: [headline-metric, Web_Analytics]",
  "---",
  "",
  "# GA notes",
  "",
  "Intro.",
  "",
  "## page_location and event_name",
  "",
  "Both are event parameters.",
  "",
  "## 2. Extract nested page_location from events",
  "",
  "Unnest the parameters.",
  "",
  "## Setup",
  "",
  "First setup.",
  "",
  "## Setup",
  "",
  "Second setup.",
  ""
].join("\n")

const LONG = [
  "# Guide",
  "",
  "Intro paragraph line.",
  "",
  "## Empty parent",
  "",
  "### Child",
  "",
  ...Array.from({ length: 60 }, (_, i) => `Line ${i} of the child section explains one more detail of the deployment.`),
  ""
].join("\n")

/** The full CLI alone (main.cjs), as bin/akm.js runs it when the search fast path declines. */
const runFull = (ws: Workspace, args: ReadonlyArray<string>): Promise<{ code: number; stdout: string; stderr: string }> =>
  new Promise((done) => {
    const main = JSON.stringify(join(repoRoot, "dist", "cli", "main.cjs"))
    execFile(process.execPath, ["-e", `require(${main}).runCli(process.argv.slice(1)).then((code) => { process.exitCode = code })`, "--", ...args],
      { cwd: ws.root, env: ws.env, encoding: "utf8", timeout: 30_000 }, (error, stdout, stderr) =>
        done({ code: error === null ? 0 : typeof error.code === "number" ? error.code : -1, stdout, stderr }))
  })

describe("output correctness (issue 15 item 5)", () => {
  const workspace = makeWorkspace()
  afterAll(workspace.cleanup)
  const notes = workspace.folder("notes", { "ga.md": GA, "guide.md": LONG })

  beforeAll(async () => {
    const added = await workspace.run(["bundle", "add", notes, "--name", "notes"])
    expect(added.code, added.stderr).toBe(0)
    const indexed = await workspace.run(["index", "--quiet"])
    expect(indexed.code, indexed.stderr).toBe(0)
  })

  it("headings keep their underscores and are addressed by GitHub's anchors, repeats as -1 (R-REF-7)", async () => {
    const outline = await workspace.run(["show", "notes//ga", "--level", "outline", "--format", "json"])
    expect(outline.code, outline.stderr).toBe(0)
    expect(outline.json().outline.map((h: { text: string; slug: string }) => [h.text, h.slug])).toEqual([
      ["GA notes", "ga-notes"],
      ["page_location and event_name", "page_location-and-event_name"],
      ["2. Extract nested page_location from events", "2-extract-nested-page_location-from-events"],
      ["Setup", "setup"],
      ["Setup", "setup-1"]
    ])
    const text = await workspace.run(["show", "notes//ga", "--level", "outline", "--format", "text"])
    expect(text.stdout).toContain("page_location and event_name  #page_location-and-event_name")
    expect(text.stdout).not.toContain("pagelocation")

    const section = await workspace.run(["show", "notes//ga#2-extract-nested-page_location-from-events", "--format", "text"])
    expect(section.code, section.stderr).toBe(0)
    expect(section.stdout).toBe("## 2. Extract nested page_location from events\n\nUnnest the parameters.\n")
    const second = await workspace.run(["show", "notes//ga#setup-1", "--format", "text"])
    expect(second.code, second.stderr).toBe(0)
    expect(second.stdout).toContain("Second setup.")
    // The older slug form still resolves.
    const older = await workspace.run(["show", "notes//ga#page-location-and-event-name", "--format", "text"])
    expect(older.code, older.stderr).toBe(0)
    expect(older.stdout.startsWith("## page_location and event_name")).toBe(true)
  })

  it("tags are shown as written and still match in their normal form", async () => {
    const card = await workspace.run(["show", "notes//ga", "--level", "card", "--format", "json"])
    expect(card.code, card.stderr).toBe(0)
    expect(card.json().tags).toEqual(["headline-metric", "Web_Analytics"])
    const text = await workspace.run(["show", "notes//ga", "--level", "card", "--format", "text"])
    expect(text.stdout).toContain("tags: headline-metric, Web_Analytics")
    for (const query of ["headline metric", "web analytics"]) {
      const found = await workspace.run(["search", query, "--format", "json"])
      expect(found.code, found.stderr).toBe(0)
      expect(found.json().hits.map((h: { ref: string }) => h.ref), query).toContain("notes//ga")
    }
  })

  it("`editable` in search hits follows `config set bundles.X.writable` at once, on both search paths", async () => {
    const editable = async (run: (args: ReadonlyArray<string>) => Promise<{ code: number; stdout: string; stderr: string }>) => {
      const r = await run(["search", "headline", "--format", "json"])
      expect(r.code, r.stderr).toBe(0)
      return (JSON.parse(r.stdout) as { hits: ReadonlyArray<{ editable: boolean }> }).hits.map((h) => h.editable)
    }
    const fast = (args: ReadonlyArray<string>) => workspace.run(args)
    const full = (args: ReadonlyArray<string>) => runFull(workspace, args)
    expect(await editable(fast)).toEqual([true])
    const set = await workspace.run(["config", "set", "bundles.notes.writable", "false"])
    expect(set.code, set.stderr).toBe(0)
    expect(await editable(fast)).toEqual([false])
    expect(await editable(full)).toEqual([false])
    const back = await workspace.run(["config", "set", "bundles.notes.writable", "true"])
    expect(back.code, back.stderr).toBe(0)
    expect(await editable(fast)).toEqual([true])
    expect(await editable(full)).toEqual([true])
  })

  it("`show --max-tokens` never ends on a heading whose body was cut away", async () => {
    const r = await workspace.run(["show", "notes//guide", "--max-tokens", "30", "--format", "json"])
    expect(r.code, r.stderr).toBe(0)
    const result = r.json()
    expect(result.truncated).toBeDefined()
    expect(result.content).toBe("# Guide\n\nIntro paragraph line.")
    expect(result.lines).toEqual({ from: 1, to: 3 })
    expect(result.truncated.toLine).toBe(3)
    expect(result.next).toBe("akm show notes//guide --lines 4:68")
  })
})

describe("akm health: the status column agrees with the attention list (issue 15 item 5)", () => {
  const workspace = makeWorkspace()
  afterAll(workspace.cleanup)

  it("a bundle with an error the attention list names is not 'ok' in the table (text, json, html)", async () => {
    const dir = workspace.folder("broken", { "bad.md": "---\ntitle: [unclosed\n---\n# X\n", "ok.md": "# ok\n\nfine\n" })
    const clean = workspace.folder("clean", { "ok.md": "# ok\n\nfine\n" })
    for (const [path, name] of [[dir, "broken"], [clean, "clean"]] as const) {
      const added = await workspace.run(["bundle", "add", path, "--name", name])
      expect(added.code, added.stderr).toBe(0)
    }
    expect((await workspace.run(["index", "--quiet"])).code).toBe(0)
    const json = await workspace.run(["health", "--format", "json"])
    expect(json.code).toBe(4)
    const result = json.json()
    expect(result.attention).toEqual([expect.objectContaining({ code: "diagnostics", bundle: "broken" })])
    expect(result.bundles.map((b: { bundle: string; status: ReadonlyArray<string> }) => [b.bundle, b.status])).toEqual([["broken", ["errors"]], ["clean", ["ok"]]])
    const text = await workspace.run(["health", "--format", "text"])
    const row = (name: string) => text.stdout.split("\n").find((line) => line.startsWith(`${name} `)) ?? ""
    expect(row("broken")).toMatch(/errors$/)
    expect(row("clean")).toMatch(/ok$/)
    const html = await workspace.run(["health", "--format", "html"])
    expect(html.stdout).toContain(`<td class="warn">errors</td>`)
  })
})

describe("akm proposal revert removes the directories its proposal created (issue 15 item 5)", () => {
  const workspace = makeWorkspace()
  afterAll(workspace.cleanup)
  let root = ""

  beforeAll(async () => {
    const created = await workspace.run(["bundle", "create", "mine", "--set-default"])
    expect(created.code, created.stderr).toBe(0)
    root = created.json().root
  })

  const proposeAndAccept = async (file: string, text: string): Promise<string> => {
    const source = join(workspace.root, `draft-${Math.random().toString(36).slice(2)}.md`)
    writeFileSync(source, text)
    const made = await workspace.run(["proposal", "new", "--bundle", "mine", "--file", `${file}=@${source}`, "--title", `Add ${file}`])
    expect(made.code, made.stderr).toBe(0)
    const id = made.json().id as string
    const accepted = await workspace.run(["proposal", "accept", id])
    expect(accepted.code, accepted.stderr).toBe(0)
    return id
  }

  it("created directories go when empty; pre-existing ones, the bundle root and filled ones stay", async () => {
    mkdirSync(join(root, "kept"), { recursive: true })
    const id = await proposeAndAccept("kept/deep/er/note.md", "# Note\n\nbody\n")
    expect(existsSync(join(root, "kept/deep/er/note.md"))).toBe(true)
    const reverted = await workspace.run(["proposal", "revert", id])
    expect(reverted.code, reverted.stderr).toBe(0)
    expect(existsSync(join(root, "kept/deep"))).toBe(false)
    expect(existsSync(join(root, "kept"))).toBe(true)
    expect(existsSync(root)).toBe(true)

    const second = await proposeAndAccept("made/here/one.md", "# One\n\nbody\n")
    // Someone else's file in a directory the proposal created: that directory stays, the empty one below goes.
    writeFileSync(join(root, "made/mine.txt"), "mine\n")
    const again = await workspace.run(["proposal", "revert", second])
    expect(again.code, again.stderr).toBe(0)
    expect(existsSync(join(root, "made/here"))).toBe(false)
    expect(readFileSync(join(root, "made/mine.txt"), "utf8")).toBe("mine\n")
  })
})
