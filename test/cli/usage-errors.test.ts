import { afterAll, describe, expect, it } from "vitest"
import { checkArgv, closest } from "../../src/cli/argvCheck.js"
import { allCommands, describeCommand, type CommandNode } from "../../src/cli/commandTree.js"
import { usageMessage } from "../../src/cli/exitCodes.js"
import { akmCommand } from "../../src/cli/root.js"
import { makeWorkspace } from "../support/cli.js"

// Issue "The CLI a newcomer trusts", item 1: flags and arguments follow one rule on every command (spec 09 §2).

const tree = describeCommand(akmCommand as never)
const name = (node: CommandNode): string => ["akm", ...node.path].join(" ")

/** A command line that would otherwise parse: every argument and required option gets a value. */
const plausible = (node: CommandNode): ReadonlyArray<string> => [
  ...node.path,
  ...node.options.filter((o) => !o.optional && !o.repeatable).flatMap((o) => [o.name, o.choices[0] ?? "x"]),
  ...node.args.map((a) => (a.name === "<shell>" ? "bash" : "x"))
]

describe("the command tree read from @effect/cli", () => {
  it("has every command, groups and leaves", () => {
    const names = allCommands(tree).map(name)
    for (const expected of ["akm", "akm init", "akm search", "akm bundle add", "akm bundle export", "akm config set", "akm proposal new", "akm registry search", "akm completions"]) {
      expect(names).toContain(expected)
    }
    expect(names.length).toBeGreaterThan(35)
  })
})

describe("argv check (in process)", () => {
  it("an unknown flag after a positional argument is still a usage error: akm search foo --bogus", () => {
    expect(checkArgv(tree, ["search", "foo", "--bogus"])).toMatchObject({ _tag: "Usage", message: "unknown option '--bogus' for `akm search`" })
  })

  it("a misspelt flag gets a did-you-mean", () => {
    expect(checkArgv(tree, ["search", "foo", "--limt", "3"])).toMatchObject({ _tag: "Usage", message: expect.stringContaining("did you mean '--limit'?") })
    expect(checkArgv(tree, ["bundle", "add", "x", "--writeable"])).toMatchObject({ message: expect.stringContaining("did you mean '--writable'?") })
  })

  it("`--` ends the options: what follows is arguments", () => {
    expect(checkArgv(tree, ["show", "--", "--bogus"])).toMatchObject({ _tag: "Ok" })
    expect(checkArgv(tree, ["search", "--", "-docker", "--help"])).toMatchObject({ _tag: "Ok" })
  })

  it("a value that looks like a flag belongs to its option; a boolean flag may take true/false", () => {
    expect(checkArgv(tree, ["remember", "x", "--title", "--not-a-flag"])).toMatchObject({ _tag: "Ok" })
    expect(checkArgv(tree, ["search", "x", "--no-track", "yes", "--format=json"])).toMatchObject({ _tag: "Ok" })
    expect(checkArgv(tree, ["info", "-qv"])).toMatchObject({ _tag: "Ok", argv: ["info", "-q", "-v"] })
    // @effect/cli would read a cluster as one word (for search: query words), so it is spelt out; after `--` it is a word.
    expect(checkArgv(tree, ["search", "docker", "-qv", "--", "-qv"])).toMatchObject({ _tag: "Ok", argv: ["search", "docker", "-q", "-v", "--", "-qv"] })
  })

  it("option values are checked in English, naming the option", () => {
    expect(checkArgv(tree, ["search", "x", "--limit", "two"])).toMatchObject({ message: "--limit: 'two' is not an integer" })
    expect(checkArgv(tree, ["info", "--format", "jsn"])).toMatchObject({ message: expect.stringMatching(/^--format: 'jsn' is not one of text, json.*did you mean 'json'\?$/) })
    expect(checkArgv(tree, ["remember", "x", "--bundle"])).toMatchObject({ message: "--bundle needs a value (<bundle>)" })
  })

  it("a mistyped subcommand lists that group's subcommands with a did-you-mean", () => {
    const r = checkArgv(tree, ["bundle", "lst"])
    expect(r).toMatchObject({ _tag: "Usage", message: "unknown command 'lst' of `akm bundle`; did you mean 'list'?" })
    expect(r._tag === "Usage" && r.hint).toContain("add, create, list, show, update, rename, remove, export")
    expect(r._tag === "Usage" && r.hint).not.toContain("feedback")
  })

  it("an option followed by another of the command's options has no value (not the option's name taken as one)", () => {
    expect(checkArgv(tree, ["index", "--bundle", "--format", "text"])).toMatchObject({ _tag: "Usage", message: "--bundle needs a value (<bundle>)" })
    expect(checkArgv(tree, ["index", "--bundle", "--full"])).toMatchObject({ _tag: "Usage", message: "--bundle needs a value (<bundle>)" })
    // A value that merely starts with dashes is still a value.
    expect(checkArgv(tree, ["evidence", "add", "--kind", "session", "--note", "--not-an-option"])).toMatchObject({ _tag: "Ok" })
  })

  it("a mistyped command gets a did-you-mean", () => {
    expect(checkArgv(tree, ["serch", "x"])).toMatchObject({ _tag: "Usage", message: "unknown command 'serch'; did you mean 'search'?" })
    expect(closest("frobnicate", ["init", "info", "search"])).toEqual([])
  })

  it("--help anywhere before `--` is help for that command; @effect/cli built-ins are not options", () => {
    expect(checkArgv(tree, ["bundle", "add", "x", "--help"])).toMatchObject({ _tag: "Help", command: { path: ["bundle", "add"] } })
    expect(checkArgv(tree, ["bundle", "-h"])).toMatchObject({ _tag: "Help", command: { path: ["bundle"] } })
    for (const builtIn of ["--wizard", "--log-level", "--completions"]) expect(checkArgv(tree, ["info", builtIn])).toMatchObject({ _tag: "Usage" })
  })

  it("@effect/cli's own messages read as English", () => {
    expect(usageMessage("'abc' is not a integer")).toBe("'abc' is not an integer")
    expect(usageMessage("Expected to find option: '--to'")).toBe("missing required option --to")
    expect(usageMessage("Received unknown argument: 'y'")).toBe("unexpected argument 'y'")
    // `akm evidence add` without --kind and --note: both named, both in English.
    expect(usageMessage("Expected to find option: '--kind'\nExpected to find option: '--note'")).toBe("missing required option --kind; missing required option --note")
  })
})

describe("every command with an unknown flag exits 2 (built CLI)", () => {
  const ws = makeWorkspace()
  afterAll(ws.cleanup)

  it("text: stderr starts with `error:` and names the flag; json: the envelope's code is usage", async () => {
    // Every command of the tree, groups and the root included; search too: the full CLI checks it like the rest.
    for (const node of allCommands(tree)) {
      const args = [...plausible(node), "--bogus-flag"]
      const text = await ws.run([...args, "--format", "text"])
      expect({ code: text.code, stdout: text.stdout }, `${args.join(" ")} (text)`).toEqual({ code: 2, stdout: "" })
      expect(text.stderr, args.join(" ")).toMatch(/^error: /)
      expect(text.stderr).toContain("--bogus-flag")
      const json = await ws.run([...args, "--format", "json"])
      expect(json.code, `${args.join(" ")} (json)`).toBe(2)
      expect(json.stdout).toBe("")
      expect(json.error().error.code).toBe("usage")
    }
  }, 300_000)

  it("a misspelt subcommand and command, --limit range, `--`", async () => {
    const lst = await ws.run(["bundle", "lst", "--format", "text"])
    expect(lst.code).toBe(2)
    expect(lst.stderr).toContain("error: unknown command 'lst' of `akm bundle`; did you mean 'list'?")
    const serch = await ws.run(["serch", "docker", "--format", "json"])
    expect(serch.code).toBe(2)
    expect(serch.error().error).toMatchObject({ code: "usage", message: "unknown command 'serch'; did you mean 'search'?" })
    const limit = await ws.run(["curate", "deploy", "--limit", "500", "--format", "text"])
    expect(limit.code).toBe(2)
    expect(limit.stderr).toContain("error: --limit must be between 1 and 200, not 500")
    const notInteger = await ws.run(["curate", "deploy", "--limit", "abc", "--format", "text"])
    expect(notInteger.code).toBe(2)
    expect(notInteger.stderr).toMatch(/^error: --limit: 'abc' is not an integer\n/)
    // `--` ends the options, also when global options came first and were moved after the command.
    const dashed = await ws.run(["--format", "json", "show", "--", "--bogus"])
    expect(dashed.code).toBe(1)
    expect(dashed.error().error.code).toBe("not_found")
    const missing = await ws.run(["config", "set", "--format", "text"])
    expect(missing.code).toBe(2)
    expect(missing.stderr).toMatch(/^error: missing argument <key>/)
  }, 60_000)
})
