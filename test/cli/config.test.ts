import { existsSync, readFileSync, writeFileSync } from "node:fs"
import { join } from "node:path"
import { parse as parseYaml } from "yaml"
import { afterAll, describe, expect, it } from "vitest"
import { makeWorkspace } from "../support/cli.js"

// akm config path|list|get|set|unset end to end (spec 01 §2, R-WS-4, R-WS-5).

describe("akm config", () => {
  const workspace = makeWorkspace()
  afterAll(workspace.cleanup)
  const file = join(workspace.configDir, "config.yaml")

  it("path names config.yaml, before it exists", async () => {
    const r = await workspace.run(["config", "path", "--format", "json"])
    expect(r.code).toBe(0)
    expect(r.json()).toEqual({ schemaVersion: 1, path: file, exists: false })
    const text = await workspace.run(["config", "path", "--format", "text"])
    expect(text.stdout).toBe(`${file}\n`)
  })

  it("set keeps what the user wrote in config.yaml: comments stay", async () => {
    expect((await workspace.run(["init"])).code).toBe(0)
    writeFileSync(file, `${readFileSync(file, "utf8")}# my own note: keep this\n`)
    const r = await workspace.run(["config", "set", "search.limit", "30"])
    expect(r.code).toBe(0)
    expect(r.json()).toEqual({ schemaVersion: 1, key: "search.limit", value: 30 })
    const written = readFileSync(file, "utf8")
    expect(written).toContain("# my own note: keep this")
    expect(parseYaml(written)).toMatchObject({ search: { limit: 30 } })
  })

  it("get returns the value with its type (a number in JSON)", async () => {
    const r = await workspace.run(["config", "get", "search.limit"])
    expect(r.code).toBe(0)
    expect(r.json()).toEqual({ schemaVersion: 1, key: "search.limit", value: 30 })
    const text = await workspace.run(["config", "get", "search.limit", "--format", "text"])
    expect(text.stdout).toBe("30\n")
  })

  it("get of a key that is not set: exit 1, not_found", async () => {
    const r = await workspace.run(["config", "get", "search.nothing"])
    expect(r.code).toBe(1)
    expect(r.stdout).toBe("")
    expect(r.error().error.code).toBe("not_found")
  })

  it("set to an invalid value: exit 78, config.yaml unchanged", async () => {
    const before = readFileSync(file, "utf8")
    const r = await workspace.run(["config", "set", "search.limit", "abc"])
    expect(r.code).toBe(78)
    expect(r.stdout).toBe("")
    const { error } = r.error()
    expect(error.code).toBe("config")
    expect(error.message).toContain("search.limit")
    expect(readFileSync(file, "utf8")).toBe(before)
  })

  it("list shows the validated config", async () => {
    const r = await workspace.run(["config", "list"])
    expect(r.code).toBe(0)
    expect(r.json()).toMatchObject({ schemaVersion: 1, file, config: { bundles: {}, search: { limit: 30 } } })
  })

  it("unset removes the key and keeps the comment", async () => {
    const r = await workspace.run(["config", "unset", "search.limit"])
    expect(r.code).toBe(0)
    expect(r.json()).toEqual({ schemaVersion: 1, key: "search.limit" })
    expect((await workspace.run(["config", "get", "search.limit"])).code).toBe(1)
    expect(readFileSync(file, "utf8")).toContain("# my own note: keep this")
  })

  it("unset of a key that is not set is already done: exit 0", async () => {
    for (const key of ["search.limit", "improve.generator.model"]) {
      const r = await workspace.run(["config", "unset", key])
      expect(r.code, r.stderr).toBe(0)
    }
    expect(readFileSync(file, "utf8")).toContain("# my own note: keep this")
  })

  it("a key with an empty segment is a usage error", async () => {
    const r = await workspace.run(["config", "get", "search..limit"])
    expect(r.code).toBe(2)
    expect(r.error().error.code).toBe("usage")
  })
})

describe("an invalid config.yaml: every command that reads it exits 78 (R-WS-4)", () => {
  const commands = [
    "info",
    "init",
    "config list",
    "config get search.limit",
    "config set search.limit 5",
    "config unset search.limit",
    "bundle list",
    "bundle show x",
    "bundle add .",
    "bundle create fresh",
    "bundle remove x"
  ]

  const cases = [
    { label: "broken YAML", text: "bundles: [\n", names: ["line", "invalid YAML"] },
    { label: "a schema error", text: "bundles: {x: {source: {kind: nope}}}\n", names: ["bundles.x.source.kind", "nope"] }
  ]

  describe.concurrent.each(cases)("$label", ({ text, names }) => {
    const workspace = makeWorkspace()
    afterAll(workspace.cleanup)
    const file = join(workspace.configDir, "config.yaml")
    workspace.folder("config", { "config.yaml": text })

    it.each(commands)("akm %s", async (command) => {
      const r = await workspace.run(command.split(" "))
      expect(r.code).toBe(78)
      expect(r.stdout).toBe("")
      const { error } = r.error()
      expect(error.code).toBe("config")
      expect(error.message).toContain(file)
      for (const name of names) expect(error.message).toContain(name)
      expect(error.hint).toContain(file)
      expect(readFileSync(file, "utf8")).toBe(text)
      expect(existsSync(join(workspace.dataDir, "state.db"))).toBe(false)
    })

    it("as text: the same, in words", async () => {
      const r = await workspace.run(["info", "--format", "text"])
      expect(r.code).toBe(78)
      expect(r.stdout).toBe("")
      expect(r.stderr).toMatch(/^error: /)
      expect(r.stderr).toContain(file)
      expect(r.stderr).toContain("hint: ")
    })
  })
})
