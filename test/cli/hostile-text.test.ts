import { writeFileSync } from "node:fs"
import { join } from "node:path"
import { afterAll, beforeAll, describe, expect, it } from "vitest"
import { makeWorkspace } from "../support/cli.js"

/**
 * Text from someone else's bundle must not take over a terminal: escape
 * sequences (CSI, OSC — OSC 52 writes the clipboard — and their C1 forms) and
 * other controls in content and names are neutralised in every text output
 * and escaped in JSON.
 */
const ESC = "\u001b"
const OSC52 = `${ESC}]52;c;cm0gLXJmIH4=\u0007`
const CLEAR = `${ESC}[2J${ESC}[H`
const C1 = "\u009b31m\u009d0;pwned\u009c"
// Any C0 control but newline and tab, DEL, any C1 control.
// eslint-disable-next-line no-control-regex
const CONTROL = /[\u0000-\u0008\u000b-\u001f\u007f-\u009f]/

describe("hostile text from bundle content and names", () => {
  const workspace = makeWorkspace()
  afterAll(workspace.cleanup)
  const bundle = workspace.folder("src-h", {
    "zebra.md": `---\ntitle: "Zebra ${OSC52} care"\ndescription: "Feeding zebras ${CLEAR} daily ${C1}"\ntags: [zebra]\n---\n# Zebra ${OSC52} care\n\nZebras eat grass ${CLEAR} and hay ${C1}.\n\n## Water ${ESC}[31mred${ESC}[0m\n\nFresh water for zebras.\n`
  })

  beforeAll(async () => {
    // A file name carrying an escape sequence, as a hostile archive could ship.
    writeFileSync(join(bundle, `zebra-${ESC}[2J-name.md`), "# Zebra name\n\nZebras by name.\n")
    const added = await workspace.run(["bundle", "add", bundle, "--name", "hostile"])
    expect(added.code, added.stderr).toBe(0)
    // An older bundle name carrying a control, as a hand-edited config could hold (it still loads).
    const config = join(workspace.configDir, "config.yaml")
    const lock = join(workspace.dataDir, "akm.lock")
    const { readFileSync } = await import("node:fs")
    writeFileSync(config, readFileSync(config, "utf8").replaceAll("hostile", '"hostile\\e[31m"'))
    writeFileSync(lock, readFileSync(lock, "utf8").replaceAll('"hostile"', '"hostile\\u001b[31m"'))
    expect((await workspace.run(["index"])).code).toBe(0)
  })

  const textRuns: ReadonlyArray<ReadonlyArray<string>> = [
    ["search", "zebra"],
    ["show", `hostile${ESC}[31m//zebra`],
    ["show", `hostile${ESC}[31m//zebra`, "--level", "card"],
    ["show", `hostile${ESC}[31m//zebra`, "--level", "outline"],
    ["curate", "zebra care feeding water"],
    ["bundle", "list"],
    ["health"],
    ["show", `hostile${ESC}[31m//missing${OSC52}`]
  ]

  it("text output (stdout and stderr) carries no control character, each shown as caret text", async () => {
    for (const args of textRuns) {
      const r = await workspace.run([...args, "--format", "text"])
      expect(r.stdout + r.stderr, args.join(" ")).not.toMatch(CONTROL)
      if (!args.some((a) => a.includes("missing")) && args[0] !== "health") expect(r.code, `${args.join(" ")}: ${r.stderr}`).toBe(0)
    }
    const shown = await workspace.run(["show", `hostile${ESC}[31m//zebra`, "--format", "text"])
    expect(shown.stdout).toContain("Zebras eat grass ^[[2J^[[H and hay ^[[31m^[]0;pwned^[\\.")
    const search = await workspace.run(["search", "zebra", "--format", "text"])
    expect(search.stdout).toContain("^[]52;c;")
    const missing = await workspace.run(["show", `hostile${ESC}[31m//missing${OSC52}`, "--format", "text"])
    expect(missing.code).not.toBe(0)
    expect(missing.stderr).toContain("^[]52;c;cm0gLXJmIH4=^G")
  })

  it("json output keeps every control, escaped by JSON", async () => {
    const search = await workspace.run(["search", "zebra", "--format", "json"])
    expect(search.stdout).not.toMatch(CONTROL)
    const hit = search.json().hits.find((h: { name: string }) => h.name.startsWith("Zebra "))
    expect(hit.name).toBe(`Zebra ${OSC52} care`)
    expect(hit.description).toContain(C1)
    const shown = await workspace.run(["show", `hostile${ESC}[31m//zebra`, "--format", "json"])
    expect(shown.stdout).not.toMatch(CONTROL)
    const missing = await workspace.run(["show", `hostile${ESC}[31m//missing${OSC52}`, "--format", "json"])
    expect(missing.stderr).not.toMatch(CONTROL)
    expect(missing.error().error.message).toContain(OSC52)
  })
})
