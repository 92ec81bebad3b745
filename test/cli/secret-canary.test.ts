import { existsSync, lstatSync, mkdirSync, readdirSync, readFileSync, symlinkSync, writeFileSync } from "node:fs"
import { dirname, join, relative } from "node:path"
import { afterAll, beforeAll, describe, expect, it } from "vitest"
import { makeWorkspace, type CliResult } from "../support/cli.js"

/**
 * The secret canary (spec 10 §3, R-DB-2, R-RT-7) over every route a value
 * could take into akm: a proposal, an import, a create, a generic-files
 * bundle's credential files and a link to an env file. Afterwards no db, log,
 * journal, archive, config or output holds the canary.
 */
const CANARY = "CANARY_9d4e_secret_never_stored"

const walkFiles = (dir: string, skip: ReadonlyArray<string>): ReadonlyArray<string> => {
  if (!existsSync(dir) || skip.includes(dir)) return []
  return readdirSync(dir).flatMap((name) => {
    const abs = join(dir, name)
    if (skip.includes(abs)) return []
    const stat = lstatSync(abs)
    return stat.isDirectory() ? walkFiles(abs, skip) : stat.isFile() ? [abs] : []
  })
}

describe("secret canary: no route stores or prints a secret value", () => {
  const workspace = makeWorkspace()
  afterAll(workspace.cleanup)
  const outputs: Array<{ readonly args: string; readonly out: string }> = []
  const run = async (args: ReadonlyArray<string>): Promise<CliResult> => {
    const r = await workspace.run(args)
    outputs.push({ args: args.join(" "), out: r.stdout + r.stderr })
    return r
  }
  let mine = ""
  let drafts = ""
  let loose = ""

  beforeAll(async () => {
    const created = await run(["bundle", "create", "mine", "--set-default"])
    expect(created.code, created.stderr).toBe(0)
    mine = created.json().root
    // What `akm env set` would have written: a value in the bundle's own env file.
    mkdirSync(join(mine, "env"), { recursive: true })
    writeFileSync(join(mine, "env/prod.env"), `# akm:public Production settings\n\nAPI_TOKEN=${CANARY}\n`)
    // A link that dresses the env file up as knowledge.
    mkdirSync(join(mine, "knowledge"), { recursive: true })
    symlinkSync("../env/prod.env", join(mine, "knowledge/prod-settings.md"))
    drafts = workspace.folder("drafts", {
      "prod.env": `API_TOKEN=${CANARY}\n`,
      "keys.env": "# akm:public Keys only\n\nAPI_TOKEN=\nexport REGION\n",
      ".env": `API_TOKEN=${CANARY}\n`,
      id_rsa: `-----BEGIN OPENSSH PRIVATE KEY-----\n${CANARY}\n`,
      "token.txt": `${CANARY}\n`,
      "note.md": "# Note\n\nAn ordinary note.\n"
    })
    symlinkSync(join(drafts, ".env"), join(drafts, "innocent.md"))
    loose = workspace.folder("loose", {
      "notes.md": "# Notes\n\nWhere the credentials live.\n",
      "app.env": `API_TOKEN=${CANARY}\n`,
      "secrets.txt": `token: ${CANARY}\n`,
      "credentials.md": `# Credentials\n\npassword ${CANARY}\n`,
      "tls/server.pem": `-----BEGIN PRIVATE KEY-----\n${CANARY}\n`,
      "ssh/id_ed25519": `${CANARY}\n`
    })
    const added = await run(["bundle", "add", loose, "--name", "loose", "--adapter", "generic-files"])
    expect(added.code, added.stderr).toBe(0)
    const indexed = await run(["index", "--full"])
    expect(indexed.code, indexed.stderr).toBe(0)
  })

  it("proposal new refuses a value for an env file and any content for a secret file; key names pass", async () => {
    for (const [target, source] of [["env/prod.env", "prod.env"], ["env/other.env", "prod.env"], ["secrets/token", "token.txt"], ["notes/leak.md", ".env"], ["notes/leak2.md", "innocent.md"]] as const) {
      const r = await run(["proposal", "new", "--bundle", "mine", "--file", `${target}=@${join(drafts, source)}`, "--title", "Leak"])
      expect(r.code, `${target}: ${r.stderr}`).toBe(2)
      expect(r.error().error.message).toContain(target.startsWith("notes/") ? "named like a secret file" : target)
    }
    const keys = await run(["proposal", "new", "--bundle", "mine", "--file", `env/new.env=@${join(drafts, "keys.env")}`, "--title", "Keys"])
    expect(keys.code, keys.stderr).toBe(0)
    expect((await run(["proposal", "list"])).json().proposals.map((p: { title: string }) => p.title)).toEqual(["Keys"])
  })

  it("proposal show and diff never print an env file's text", async () => {
    const [proposal] = (await run(["proposal", "list"])).json().proposals
    const diff = await run(["proposal", "diff", proposal.id, "--format", "text"])
    expect(diff.code, diff.stderr).toBe(0)
    expect(diff.stdout).not.toContain("API_TOKEN")
    const shown = (await run(["proposal", "show", proposal.id])).json()
    expect(shown.files).toEqual([expect.objectContaining({ path: "env/new.env", diff: "", note: expect.stringContaining("never shown") })])
  })

  it("import and create refuse files named like secrets, also behind a link", async () => {
    for (const args of [
      ["import", join(drafts, ".env")],
      ["import", join(drafts, "prod.env")],
      ["import", join(drafts, "innocent.md")],
      ["create", "knowledge", "--title", "Key", "--body-file", join(drafts, "id_rsa")]
    ]) {
      const r = await run(args)
      expect(r.code, `${args.join(" ")}: ${r.stderr}`).toBe(2)
      expect(r.error().error.message).toContain("named like a secret file")
    }
    expect((await run(["import", join(drafts, "note.md")])).code).toBe(0)
  })

  it("a generic-files bundle's credential files are listed by name only: search, show and curate print no value", async () => {
    const search = (await run(["search", "credentials", "--bundle", "loose"])).json()
    const refs = search.hits.map((h: { ref: string }) => h.ref)
    expect(refs).toContain("loose//credentials")
    for (const ref of ["loose//credentials", "loose//app.env", "loose//secrets.txt", "loose//tls/server.pem", "loose//ssh/id_ed25519"]) {
      const shown = await run(["show", ref])
      expect(shown.code, `${ref}: ${shown.stderr}`).toBe(0)
      expect(shown.json().type, ref).toBe("secret")
      expect((await run(["show", ref, "--format", "text"])).stdout).toContain("value hidden")
    }
    expect((await run(["curate", "credentials password token secrets", "--format", "text"])).code).toBe(0)
    expect((await run(["search", "token password", "--bundle", "loose"])).json().hits.map((h: { type: string }) => h.type)).not.toContain("document")
  })

  it("a link to an env file is that env file: a secret item, never indexed as knowledge", async () => {
    const shown = await run(["show", "mine//knowledge/prod-settings"])
    expect(shown.code, shown.stderr).toBe(0)
    expect(shown.json().type).toBe("secret")
    expect((await run(["search", "API_TOKEN", "--bundle", "mine"])).json().hits.map((h: { ref: string }) => h.ref)).not.toContain("mine//knowledge/prod-settings")
  })

  it("afterwards no output, db, log, journal, archive or config holds the canary", () => {
    for (const { args, out } of outputs) expect(out, args).not.toContain(CANARY)
    const stored = walkFiles(workspace.root, [mine, drafts, loose, join(workspace.root, "home")])
    expect(stored.some((f) => f.endsWith("state.db"))).toBe(true)
    expect(stored.some((f) => f.endsWith("index.db"))).toBe(true)
    for (const file of stored) expect(readFileSync(file).includes(CANARY), relative(workspace.root, file)).toBe(false)
    expect(dirname(mine).startsWith(workspace.root)).toBe(true)
  })
})
