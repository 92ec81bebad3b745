import { appendFileSync, cpSync, existsSync, mkdirSync } from "node:fs"
import { join } from "node:path"
import { afterAll, describe, expect, it } from "vitest"
import { compareJson, compareOutput, consoleBlocks, docFiles, expectedJson, type ConsoleBlock, type ConsoleCommand } from "./support/docsConsole.js"
import { makeWorkspace, repoRoot, type Workspace } from "./support/cli.js"

/**
 * Issue 15 item 10: every ```console block in README.md and docs/ runs. Each
 * doc's blocks run in order in one temp workspace laid out like the docs'
 * machine (home /home/me, the akm checkout at /home/me/src/akm with its
 * examples/, XDG directories), so the paths the docs show are the paths akm
 * prints once the temp root is cut off. A `console norun` block (network, a
 * model, PostgreSQL, the real crontab, another tool) names the tests that
 * back it, and those must exist. Folders the docs use besides examples/ are
 * in test/fixtures/docs/home/ (copied to /home/me).
 */

const docs = docFiles(repoRoot).map((path) => ({ path, blocks: consoleBlocks(repoRoot, path) })).filter((d) => d.blocks.length > 0)
const all = docs.flatMap((d) => d.blocks)
const runnable = all.filter((b) => !b.norun)
const norun = all.filter((b) => b.norun)

/** The docs' machine inside a temp root. */
const docsMachine = (workspace: Workspace, doc: string) => {
  const home = join(workspace.root, "home", "me")
  const checkout = join(home, "src", "akm")
  mkdirSync(checkout, { recursive: true })
  cpSync(join(repoRoot, "examples"), join(checkout, "examples"), { recursive: true, filter: (src) => !src.includes("node_modules") })
  // Folders the docs' user has besides the checkout (~/skills …).
  cpSync(join(repoRoot, "test", "fixtures", "docs", "home"), home, { recursive: true })
  // …and what one doc needs alone (a config.yaml with a mistake in it).
  const own = join(repoRoot, "test", "fixtures", "docs", doc.replace(/[/\\]/g, "_"))
  if (existsSync(own)) cpSync(own, home, { recursive: true })
  const env = {
    HOME: home,
    AKM_CONFIG_DIR: join(home, ".config", "akm"),
    AKM_DATA_DIR: join(home, ".local", "share", "akm"),
    AKM_CACHE_DIR: join(home, ".cache", "akm"),
    COLUMNS: "100"
  }
  return { checkout, env }
}

const describeBlock = (b: ConsoleBlock) => `${b.doc}:${b.line}`

const PROPOSAL_ID = /\b(?=[0-9a-f]{0,7}\d)[0-9a-f]{8}\b/g
const idsIn = (text: string): ReadonlyArray<string> => [...new Set(text.match(PROPOSAL_ID) ?? [])]

describe("docs console blocks (issue 15 item 10)", () => {
  it("every norun block names the tests that back it, and they exist", () => {
    const unbacked = norun.filter((b) => b.backedBy.length === 0 || b.backedBy.some((test) => !existsSync(join(repoRoot, test))))
    expect(unbacked.map((b) => `${describeBlock(b)} (${b.backedBy.join(", ") || "no test named"})`)).toEqual([])
  })

  it("counts", () => {
    // Printed so a run shows how much of the docs is executed.
    console.log(`docs console blocks: ${all.length} (${runnable.length} run, ${runnable.reduce((n, b) => n + b.commands.length, 0)} commands; ${norun.length} norun)`)
    for (const b of norun) console.log(`  norun ${describeBlock(b)} ← ${b.backedBy.join(", ")}`)
    expect(runnable.length).toBeGreaterThan(0)
  })

  for (const doc of docs.filter((d) => d.blocks.some((b) => !b.norun))) {
    describe(doc.blocks[0]!.doc, () => {
      const workspace = makeWorkspace()
      afterAll(workspace.cleanup)
      const machine = docsMachine(workspace, doc.blocks[0]!.doc)
      let lastExit = 0
      // A proposal id shown in a doc's output stands for the id the run printed there, in later commands too.
      const ids = new Map<string, string>()

      const run = async (command: ConsoleCommand, where: string, check: boolean) => {
        if (command.kind === "exit-status") {
          if (check) expect(String(lastExit), `${where}: $ ${command.line}`).toBe(command.expected.join("\n").trim())
          return
        }
        const given = command.argv.map((word) => word.replace(PROPOSAL_ID, (id) => ids.get(id) ?? id))
        const argv = given.includes("--format") || given.some((a) => a.startsWith("--format=")) ? given : [...given, "--format", "text"]
        const r = await workspace.run(argv, { cwd: machine.checkout, env: machine.env })
        lastExit = r.code
        const output = `${r.stdout}${r.stderr}`.replaceAll(workspace.root, "")
        // AKM_DOCS_DUMP=<file>: append what each command printed, for updating a doc after a deliberate change.
        if (process.env.AKM_DOCS_DUMP !== undefined) appendFileSync(process.env.AKM_DOCS_DUMP, `### ${where} (exit ${r.code})\n$ ${command.line}\n${output}\n`)
        expect(r.code, `${where}: $ ${command.line} crashed:\n${output}`).not.toBe(70)
        const shown = idsIn(command.expected.join("\n"))
        const printed = idsIn(output)
        if (shown.length === printed.length) shown.forEach((id, i) => ids.set(id, printed[i]!))
        if (!check || command.expected.length === 0) return
        const json = expectedJson(command.expected)
        const problem = json === undefined
          ? compareOutput(command.expected, output)
          : compareJson(json, JSON.parse(r.stdout.replaceAll(workspace.root, "")))
        expect(problem, `${where}: $ ${command.line}\n${problem}`).toBeUndefined()
      }

      for (const block of doc.blocks.filter((b) => !b.norun)) {
        it(`${describeBlock(block)}: ${block.commands.map((c) => `$ ${c.line}`).join("; ")}`, async () => {
          for (const command of block.setup) await run(command, `${describeBlock(block)} (setup)`, false)
          for (const command of block.commands) await run(command, describeBlock(block), true)
        })
      }
    })
  }
})
