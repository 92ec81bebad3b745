import { execFileSync } from "node:child_process"
import { readFileSync } from "node:fs"
import { join } from "node:path"
import { afterAll, beforeAll, describe, expect, it } from "vitest"
import { describeCommand, allCommands } from "../../src/cli/commandTree.js"
import { withoutInternals } from "../../src/cli/exitCodes.js"
import { akmCommand } from "../../src/cli/root.js"
import { plural } from "../../src/domain/Plural.js"
import { makeWorkspace, repoRoot } from "../support/cli.js"

// Issue "The CLI a newcomer trusts", item 2: every error points at a real next step, in plain words.

const page = (title: string) => `---\ndescription: ${title}\n---\n# ${title}\n\nText.\n`

describe("errors that point at a real next step (built CLI)", () => {
  const ws = makeWorkspace()
  afterAll(ws.cleanup)

  beforeAll(async () => {
    const notes = ws.folder("notes", { "setup.md": page("Setup notes") })
    const team = ws.folder("team", { "setup.md": page("Team setup") })
    expect((await ws.run(["bundle", "add", notes, "--name", "notes", "--writable"])).code).toBe(0)
    expect((await ws.run(["bundle", "add", team, "--name", "team"])).code).toBe(0)
  }, 60_000)

  it("a short ref in several bundles resolves as R-REF-3 (default, then config order) and a note names the others", async () => {
    const r = await ws.run(["show", "setup", "--format", "json"])
    expect(r.code, r.stderr).toBe(0)
    expect(r.json().ref).toBe("notes//setup")
    expect(r.stderr).toContain("note: 'setup' is notes//setup; also in team//setup")
  })

  it("a ref to a missing bundle says there is no bundle of that name (exit 1)", async () => {
    const r = await ws.run(["show", "gone//setup", "--format", "json"])
    expect(r.code).toBe(1)
    expect(r.error().error).toMatchObject({ code: "not_found", message: "no bundle named 'gone'", hint: "configured bundles: notes, team" })
  })

  it("`show x.md` suggests the ref without the extension", async () => {
    const r = await ws.run(["show", "notes//setup.md", "--format", "json"])
    expect(r.code).toBe(1)
    expect(r.error().error.hint).toContain("did you mean `notes//setup`?")
  })

  it("an unknown --bundle in search, curate and proposal list is not_found (exit 1) naming the bundles there are", async () => {
    for (const args of [["search", "setup", "--bundle", "nope"], ["curate", "setup", "--bundle", "nope"], ["proposal", "list", "--bundle", "nope"]]) {
      const r = await ws.run([...args, "--format", "json"])
      expect(r.code, args.join(" ")).toBe(1)
      expect(r.error().error, args.join(" ")).toEqual({ code: "not_found", message: "no bundle named 'nope'", hint: "configured bundles: notes, team" })
    }
    // A bundle that is configured but has no proposals is an empty list, not an error.
    expect((await ws.run(["proposal", "list", "--bundle", "team"])).code).toBe(0)
  })

  it("`config set search.limit abc` names the key and the expected type, not a line of the file", async () => {
    for (const [value, expected] of [["abc", 'search.limit must be a number, not "abc"'], ["500", 'search.limit must be a number between 1 and 200, not "500"']]) {
      const r = await ws.run(["config", "set", "search.limit", value!, "--format", "json"])
      expect(r.code).toBe(78)
      expect(r.error().error.message).toContain(expected)
      expect(r.error().error.message).not.toMatch(/line \d+/)
    }
    expect((await ws.run(["config", "set", "search.limit", "200"])).code).toBe(0)
  })

  it("a missing local file is named in plain words, without @effect/platform's internals", async () => {
    for (const args of [["import", "./missing.md", "--bundle", "notes"], ["create", "knowledge", "--bundle", "notes", "--title", "T", "--body-file", "./nope.md"]]) {
      const r = await ws.run([...args, "--format", "json"])
      expect(r.code, args.join(" ")).toBe(2)
      expect(r.error().error.message).toMatch(/: no such file or directory$/)
      expect(r.error().error.message).not.toContain("FileSystem.")
    }
  })

  it("-q keeps what stdout refers to: registry search without registries prints the config example on stdout", async () => {
    const r = await ws.run(["registry", "search", "kubernetes", "-q", "--format", "text"])
    expect(r.code).toBe(0)
    expect(r.stderr).toBe("")
    expect(r.stdout).toContain("registries:\n  - { name: team")
  })

  it("counts agree with their nouns: 1 warning, 0 errors", async () => {
    const r = await ws.run(["bundle", "show", "notes", "--format", "text"])
    expect(r.code).toBe(0)
    expect(r.stdout).not.toMatch(/\b1 (errors|warnings|items)\b/)
  })
})

describe("no internal text in user-facing strings", () => {
  it("the stale-proposal hint names no command that does not exist", () => {
    const engine = readFileSync(join(repoRoot, "src/layers/fs/TransactionEngine.ts"), "utf8")
    const hint = /const staleHint = "([^"]+)"/.exec(engine)?.[1]
    expect(hint).toBe("the file changed since the change was made; regenerate the change from the current file or resolve it by hand")
    const commands = new Set(allCommands(describeCommand(akmCommand as never)).map((c) => ["akm", ...c.path].join(" ")))
    for (const named of hint!.matchAll(/akm [a-z]+(?: [a-z]+)?/g)) expect(commands.has(named[0]) || commands.has(named[0].split(" ").slice(0, 2).join(" ")), named[0]).toBe(true)
  })

  it("no requirement id appears inside a string literal of src/ (comments may cite them)", () => {
    const files = execFileSync("git", ["ls-files", "src"], { cwd: repoRoot, encoding: "utf8" }).split("\n").filter((f) => f.endsWith(".ts"))
    const offending: Array<string> = []
    for (const file of files) {
      readFileSync(join(repoRoot, file), "utf8").split("\n").forEach((line, i) => {
        const code = line.replace(/\/\/ .*$/, "").trim()
        if (code.startsWith("*") || code.startsWith("/*") || code.startsWith("//")) return
        // FetchRefused's `rule` is an internal code, never printed.
        if (/rule(:| ===) "R-/.test(code)) return
        if (/["'`][^"'`]*\bR-[A-Z]+-\d+/.test(code)) offending.push(`${file}:${i + 1}: ${code}`)
      })
    }
    expect(offending).toEqual([])
  })

  it("the error report strips @effect/platform's prefix and requirement ids as a last guard", () => {
    expect(withoutInternals("cannot read /x: NotFound: FileSystem.stat (/x): ENOENT: no such file")).toBe("cannot read /x: ENOENT: no such file")
    expect(withoutInternals("x resolves outside the bundle root (R-AD-4)")).toBe("x resolves outside the bundle root")
  })

  it("plural", () => {
    expect([plural(0, "error"), plural(1, "error"), plural(2, "warning")]).toEqual(["0 errors", "1 error", "2 warnings"])
  })
})
