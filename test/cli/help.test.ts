import { describe, expect, it } from "vitest"
import { allCommands, describeCommand } from "../../src/cli/commandTree.js"
import { renderHelp, summary, wrap } from "../../src/cli/help.js"
import { akmCommand } from "../../src/cli/root.js"
import { runAkm } from "../support/cli.js"

// Issue "The CLI a newcomer trusts", item 3: help written for 80 columns, snapshot-tested for every command.

const tree = describeCommand(akmCommand as never)
const VERSION = "0.0.0-test"
const PLACEHOLDERS = [/user-defined piece of text/i, /this setting is optional/i, /may be repeated/i, /a true or false value/i, /one of the following/i, /--wizard/, /--log-level/, /--completions/]

describe.each(allCommands(tree).map((node) => [["akm", ...node.path].join(" "), node] as const))("%s --help", (label, node) => {
  const help = renderHelp(node, VERSION)

  it("matches its snapshot", async () => {
    await expect(help).toMatchFileSnapshot(`__snapshots__/help/${label.replace(/ /g, "_")}.txt`)
  })

  it("has no line over 80 columns and no placeholder text", () => {
    for (const line of help.split("\n")) expect(line.length, line).toBeLessThanOrEqual(80)
    for (const placeholder of PLACEHOLDERS) expect(help).not.toMatch(placeholder)
  })

  it("shows `akm …` usage, a description for every argument and option, and one example", () => {
    expect(help).toMatch(new RegExp(`^(akm ${VERSION}\\n\\n)?Usage: ${label}`))
    for (const option of node.options) expect(option.description, `${label} ${option.name}`).not.toBe("")
    for (const arg of node.args) expect(arg.description, `${label} ${arg.name}`).not.toBe("")
    expect(help).toMatch(/\nExample:\n {2}[^\n]*akm /)
    for (const option of node.options.filter((o) => o.repeatable)) expect(help).toMatch(new RegExp(`${option.name}[^\\n]*\\n?[^\\n]*repeat`))
  })
})

describe("help rendering", () => {
  it("akm --help lists each command on one line and the global options once", () => {
    const help = renderHelp(tree, VERSION)
    for (const node of tree.subcommands) expect(help).toMatch(new RegExp(`\\n {2}${node.name} +\\S[^\\n]*\\n(  \\S|\\n)`))
    expect(help.match(/--config-dir/g)).toHaveLength(1)
  })

  it("a summary is the first sentence, cut at a colon when long", () => {
    expect(summary("List the configured bundles. Example: akm bundle list")).toBe("List the configured bundles")
    expect(summary("Check the workspace: bundles, index freshness, memory against its water marks; exits 4. Example: akm health")).toBe("Check the workspace")
  })

  it("wrap keeps words whole", () => {
    expect(wrap("aa bb cc", 5)).toEqual(["aa bb", "cc"])
  })

  it("the built CLI prints the same help, on stdout with exit 0, for --help, -h and a bare group", async () => {
    const root = await runAkm(["--help"])
    expect(root.code).toBe(0)
    expect(root.stdout).toContain("Usage: akm <command> [options]")
    expect(root.stdout).not.toContain("--wizard")
    const leaf = await runAkm(["bundle", "add", "-h"])
    expect(leaf.code).toBe(0)
    expect(leaf.stdout).toBe(renderHelp(allCommands(tree).find((n) => n.path.join(" ") === "bundle add")!, "unused"))
    for (const line of `${root.stdout}${leaf.stdout}`.split("\n")) expect(line.length).toBeLessThanOrEqual(100)
  }, 30_000)
})
