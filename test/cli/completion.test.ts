import { existsSync, readdirSync, readFileSync, statSync } from "node:fs"
import { join } from "node:path"
import { afterAll, beforeAll, describe, expect, it, vi } from "vitest"
import { allCommands, describeCommand } from "../../src/cli/commandTree.js"
import { planCompletion } from "../../src/cli/complete.js"
import { runCli } from "../../src/cli/main.js"
import { akmCommand } from "../../src/cli/root.js"
import { makeWorkspace, repoRoot, runAkm } from "../support/cli.js"

// Issue "The CLI a newcomer trusts", item 4: `akm __complete <words…>`, the one source of every shell's completions.

const tree = describeCommand(akmCommand as never)
const plan = (...words: ReadonlyArray<string>) => planCompletion(tree, words)

describe("planCompletion (the command tree alone)", () => {
  it("offers commands, then a group's subcommands, by prefix", () => {
    expect(plan("").candidates).toEqual(tree.subcommands.map((c) => c.name))
    expect(plan("se").candidates).toEqual(["search", "secret"])
    expect(plan("s").candidates).toEqual(["search", "show", "secret", "scope", "sync", "storage"])
    expect(plan("bundle", "").candidates).toEqual(["add", "create", "list", "show", "update", "rename", "remove", "export"])
    expect(plan("bundle", "re").candidates).toEqual(["rename", "remove"])
    expect(plan("proposal", "re").candidates).toEqual(["reject", "revert", "recover", "refresh"])
  })

  it("offers option names, long and short, and leaves out an option already given", () => {
    expect(plan("search", "--b").candidates).toEqual(["--bundle", "--belief"])
    expect(plan("search", "-").candidates).toEqual(expect.arrayContaining(["--limit", "--no-track", "-q", "-v", "--format", "--help", "-h"]))
    expect(plan("show", "--level", "card", "--").candidates).not.toContain("--level")
    // --tag may be repeated.
    expect(plan("remember", "--tag", "a", "--t").candidates).toEqual(["--title", "--tag", "--tags"])
    expect(plan("-").candidates).toEqual(expect.arrayContaining(["--format", "--config-dir", "--help", "--version"]))
    expect(plan("bundle", "-").candidates).toEqual(["--format", "--quiet", "-q", "--verbose", "-v", "--config-dir", "--data-dir", "--cache-dir", "--help", "-h"])
  })

  it("offers an option's enumerated values, after a space or an =", () => {
    expect(plan("--format", "j").candidates).toEqual(["json", "jsonl"])
    expect(plan("search", "q", "--format", "j").candidates).toEqual(["json", "jsonl"])
    expect(plan("search", "--format=j").candidates).toEqual(["--format=json", "--format=jsonl"])
    expect(plan("show", "--level", "").candidates).toEqual(["card", "outline", "full"])
    expect(plan("lint", "--fail-on=").candidates).toEqual(["--fail-on=error", "--fail-on=warning"])
    expect(plan("proposal", "list", "--status", "re").candidates).toEqual(["rejected", "reverted"])
    expect(plan("completions", "").candidates).toEqual(["bash", "zsh", "fish"])
  })

  it("asks the index for bundle names and refs where an option or argument takes one", () => {
    expect(plan("search", "--bundle", "no").lookup).toEqual({ kind: "bundles", partial: "no", insert: "" })
    expect(plan("lint", "--bundle=").lookup).toEqual({ kind: "bundles", partial: "", insert: "--bundle=" })
    expect(plan("bundle", "export", "site", "--to", "").lookup).toMatchObject({ kind: "bundles" })
    for (const command of ["show", "update", "remove", "rename", "export"]) expect(plan("bundle", command, "").lookup, command).toMatchObject({ kind: "bundles" })
    // The new name of a rename, and bundle create's name, are new: nothing to offer.
    expect(plan("bundle", "rename", "notes", "")).toMatchObject({ candidates: [], lookup: undefined })
    expect(plan("bundle", "create", "")).toMatchObject({ candidates: [], lookup: undefined })
    expect(plan("show", "notes//gu").lookup).toEqual({ kind: "refs", partial: "notes//gu", insert: "" })
    expect(plan("feedback", "").lookup).toMatchObject({ kind: "refs" })
  })

  it("after `--` offers arguments only, and nothing for an unknown command or a path", () => {
    expect(plan("show", "--", "-x").lookup).toEqual({ kind: "refs", partial: "-x", insert: "" })
    expect(plan("search", "--", "--").candidates).toEqual([])
    expect(plan("bogus", "")).toMatchObject({ candidates: [], lookup: undefined })
    expect(plan("bundle", "lst", "")).toMatchObject({ candidates: [], lookup: undefined })
    expect(plan("bundle", "add", "./no")).toMatchObject({ candidates: [], lookup: undefined })
    expect(plan("search", "--format=")).toMatchObject({ candidates: expect.arrayContaining(["--format=text", "--format=html"]) })
    expect(plan("--no-such", "--format=x").candidates).toEqual([])
  })

  it("reads --config-dir, --data-dir and --cache-dir from the line, before or after the command", () => {
    expect(plan("--cache-dir", "/c", "show", "--data-dir=/d", "").overrides).toEqual({ cacheDir: "/c", dataDir: "/d" })
  })

  it("every option with choices, anywhere in the tree, completes them", () => {
    for (const node of allCommands(tree).filter((n) => n.subcommands.length === 0)) {
      for (const option of node.options.filter((o) => o.choices.length > 0)) {
        expect(plan(...node.path, option.name, "").candidates, `${node.path.join(" ")} ${option.name}`).toEqual(option.choices)
      }
    }
  })
})

/** Every file under `dir` with its size and mtime: what "never writes" is checked against. */
const snapshot = (dir: string): Record<string, string> => {
  const out: Record<string, string> = {}
  const walk = (at: string): void => {
    for (const entry of readdirSync(at, { withFileTypes: true })) {
      const path = join(at, entry.name)
      if (entry.isDirectory()) walk(path)
      else out[path] = `${statSync(path).size}:${statSync(path).mtimeMs}`
    }
  }
  if (existsSync(dir)) walk(dir)
  return out
}

describe("akm __complete over a workspace with two bundles", () => {
  const workspace = makeWorkspace()
  afterAll(workspace.cleanup)
  const complete = async (...words: ReadonlyArray<string>) => {
    const r = await workspace.run(["__complete", ...words])
    expect(r.code, r.stderr).toBe(0)
    expect(r.stderr).toBe("")
    return r.stdout.split("\n").filter((line) => line !== "")
  }

  beforeAll(async () => {
    const notes = workspace.folder("notes", { "hello.md": "# Hello\n\nhi\n", "deploy/rotate.md": "# Rotate\n\nkeys\n", "deploy/rollback.md": "# Rollback\n\nback\n" })
    const ops = workspace.folder("ops", { "runbook.md": "# Runbook\n\nsteps\n" })
    for (const [dir, name] of [[notes, "notes"], [ops, "ops"]] as const) {
      const added = await workspace.run(["bundle", "add", dir, "--name", name])
      expect(added.code, added.stderr).toBe(0)
    }
    const indexed = await workspace.run(["index", "--quiet"])
    expect(indexed.code, indexed.stderr).toBe(0)
  }, 60_000)

  it("commands, subcommands, options and --format values", async () => {
    expect(await complete("se")).toEqual(["search", "secret"])
    expect(await complete("bundle", "re")).toEqual(["rename", "remove"])
    expect(await complete("show", "--l")).toEqual(["--level", "--lines"])
    expect(await complete("--format", "j")).toEqual(["json", "jsonl"])
    expect(await complete("search", "--format=j")).toEqual(["--format=json", "--format=jsonl"])
  })

  it("bundle names from the index", async () => {
    expect(await complete("bundle", "remove", "")).toEqual(["notes", "ops"])
    expect(await complete("search", "--bundle", "o")).toEqual(["ops"])
    expect(await complete("curate", "--bundle=n")).toEqual(["--bundle=notes"])
  })

  it("refs: full refs after bundle//, else bundles and short refs", async () => {
    expect(await complete("show", "notes//deploy/ro")).toEqual(["notes//deploy/rollback", "notes//deploy/rotate"])
    expect(await complete("show", "notes//")).toEqual(["notes//deploy/rollback", "notes//deploy/rotate", "notes//hello"])
    expect(await complete("feedback", "o")).toEqual(["ops//"])
    expect(await complete("show", "")).toEqual(["notes//", "ops//", "deploy/rollback", "deploy/rotate", "hello", "runbook"])
    expect(await complete("show", "--level", "card", "--", "r")).toEqual(["runbook"])
  })

  it("an unknown command, a path argument or a ref that matches nothing: no output, exit 0", async () => {
    expect(await complete("frobnicate", "")).toEqual([])
    expect(await complete("bundle", "add", "./")).toEqual([])
    expect(await complete("show", "nope//")).toEqual([])
  })

  it("reads the workspace a --cache-dir on the line names", async () => {
    const elsewhere = makeWorkspace()
    try {
      expect(await elsewhere.run(["__complete", "bundle", "show", ""]).then((r) => r.stdout)).toBe("")
      expect((await elsewhere.run(["__complete", "--cache-dir", workspace.cacheDir, "bundle", "show", ""])).stdout).toBe("notes\nops\n")
    } finally {
      elsewhere.cleanup()
    }
  })

  it("never writes: the workspace's files are the same before and after", async () => {
    const before = { ...snapshot(workspace.dataDir), ...snapshot(workspace.cacheDir), ...snapshot(workspace.configDir) }
    await complete("show", "notes//")
    await complete("bundle", "remove", "")
    expect({ ...snapshot(workspace.dataDir), ...snapshot(workspace.cacheDir), ...snapshot(workspace.configDir) }).toEqual(before)
  })
})

describe("akm __complete without a workspace", () => {
  it("prints nothing for a bundle or ref, exits 0 and creates nothing", async () => {
    const workspace = makeWorkspace()
    try {
      for (const words of [["show", ""], ["bundle", "remove", ""], ["search", "--bundle", ""]]) {
        const r = await workspace.run(["__complete", ...words])
        expect(r).toMatchObject({ code: 0, stdout: "", stderr: "" })
      }
      for (const dir of [workspace.configDir, workspace.dataDir, workspace.cacheDir]) expect(existsSync(dir), dir).toBe(false)
    } finally {
      workspace.cleanup()
    }
  })

  it("still completes commands", async () => {
    expect((await runAkm(["__complete", "he"])).stdout).toBe("health\n")
  })
})

describe("the two ways akm __complete runs", () => {
  it("bin/akm.js's fast path reads the command tree the build wrote from the same descriptors", async () => {
    await runAkm(["__complete", "se"]) // builds dist/ when it is stale
    const built = JSON.parse(readFileSync(join(repoRoot, "dist", "cli", "command-tree.json"), "utf8")) as unknown
    expect(built).toEqual(JSON.parse(JSON.stringify(tree)))
  })

  it("the full CLI (runCli) answers it too, before parsing its words as options", async () => {
    const written: Array<string> = []
    const write = vi.spyOn(process.stdout, "write").mockImplementation((chunk) => {
      written.push(String(chunk))
      return true
    })
    try {
      expect(await runCli(["__complete", "--format", "j"])).toBe(0)
    } finally {
      write.mockRestore()
    }
    expect(written.join("")).toBe("json\njsonl\n")
  })
})
