import { readFileSync, writeFileSync } from "node:fs"
import { join } from "node:path"
import { afterAll, describe, expect, it } from "vitest"
import { makeWorkspace } from "../support/cli.js"

// improve.generator in config.yaml end to end (spec 01 §2, §6): a literal key is refused (exit 78), never echoed.

describe("akm config set improve.generator.*", () => {
  const workspace = makeWorkspace()
  afterAll(workspace.cleanup)
  const file = join(workspace.configDir, "config.yaml")

  it("a generator with a key reference is accepted", async () => {
    expect((await workspace.run(["init"])).code).toBe(0)
    writeFileSync(file, `${readFileSync(file, "utf8")}improve:\n  generator: { kind: openai-compatible, baseUrl: "http://127.0.0.1:11434/v1", model: qwen3 }\n`)
    const r = await workspace.run(["config", "set", "improve.generator.apiKey", "env:MY_KEY"])
    expect(r.code, r.stderr).toBe(0)
    expect((await workspace.run(["config", "list"])).code).toBe(0)
  })

  it("a literal key: exit 78 naming improve.generator.apiKey, the key in no output, config.yaml unchanged", async () => {
    const before = readFileSync(file, "utf8")
    const literal = "sk-proj-Literal0123456789abcdef"
    const r = await workspace.run(["config", "set", "improve.generator.apiKey", literal])
    expect(r.code).toBe(78)
    expect(r.error().error.message).toContain("improve.generator.apiKey")
    expect(r.stdout + r.stderr).not.toContain(literal)
    expect(readFileSync(file, "utf8")).toBe(before)
  })

  it("plain http to another host: exit 78 naming improve.generator.baseUrl", async () => {
    const r = await workspace.run(["config", "set", "improve.generator.baseUrl", "http://gpu-box.lan:8000/v1"])
    expect(r.code).toBe(78)
    expect(r.error().error.message).toContain("improve.generator.baseUrl")
  })
})
