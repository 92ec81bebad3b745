import { afterAll, describe, expect, it } from "vitest"
import { makeWorkspace } from "../support/cli.js"

// akm health against the memory water marks, end to end (spec 04 §7, spec 06 §8.2): exit 4 past high water.

const memory = (title: string) => `---\ndescription: ${title}\n---\n# ${title}\n\nRemembered: ${title}.\n`
const files = {
  "memories/runner-ip.md": memory("Runner IP"),
  "memories/deploy-window.md": memory("Deploy window"),
  "memories/flaky-test.md": memory("Flaky test"),
  "knowledge/guide.md": "# Guide\n\nNot a memory.\n"
}
const memoryBytes = Object.entries(files).filter(([name]) => name.startsWith("memories/")).reduce((sum, [, text]) => sum + Buffer.byteLength(text), 0)

describe("akm health: memory pressure", () => {
  const workspace = makeWorkspace()
  afterAll(workspace.cleanup)

  it("under the marks: exit 0, the tier's size and marks in json, text and html", async () => {
    const folder = workspace.folder("mem", files)
    expect((await workspace.run(["bundle", "add", folder, "--name", "mem", "--adapter", "akm"])).code).toBe(0)
    expect((await workspace.run(["index", "--quiet"])).code).toBe(0)

    const json = await workspace.run(["health", "--format", "json"])
    expect(json.code, json.stdout).toBe(0)
    expect(json.json().bundles[0].memory).toEqual({ items: 3, bytes: memoryBytes, highWaterItems: 1000, lowWaterItems: 800, highWaterBytes: 52_428_800, pressure: "ok" })

    const text = await workspace.run(["health", "--format", "text"])
    expect(text.code).toBe(0)
    expect(text.stdout).toMatch(/MEMORY\s+ITEMS\s+SIZE\s+HIGH WATER\s+PRESSURE\n\s*mem\s+3\s+\d+ B\s+1000 items \/ 50\.0 MiB\s+ok/)

    const html = await workspace.run(["health", "--format", "html"])
    expect(html.code).toBe(0)
    expect(html.stdout).toContain("<h2>Memory</h2>")
    expect(html.stdout).toContain("<td>1000 items / 50.0 MiB</td><td>800 items</td><td class=\"ok\">ok</td>")
  })

  it("past highWaterItems: exit 4 with a memory-pressure item; its hint's search lists the memories", async () => {
    expect((await workspace.run(["config", "set", "memory.highWaterItems", "2"])).code).toBe(0)
    const json = await workspace.run(["health", "--format", "json"])
    expect(json.code, json.stdout).toBe(4)
    const result = json.json()
    expect(result.ok).toBe(false)
    expect(result.attention).toEqual([{
      code: "memory-pressure",
      bundle: "mem",
      message: `bundle 'mem' holds 3 memory items (${memoryBytes} bytes), over memory.highWaterItems (2): consolidation is required`,
      hint: expect.stringContaining("akm config set memory.highWaterItems <n>")
    }])
    expect(result.bundles[0].memory).toMatchObject({ items: 3, highWaterItems: 2, lowWaterItems: 1, pressure: "high" })

    const text = await workspace.run(["health", "--format", "text"])
    expect(text.code).toBe(4)
    expect(text.stdout).toContain("1 thing needs attention:\n  - bundle 'mem' holds 3 memory items")
    expect((await workspace.run(["health", "--format", "html"])).stdout).toContain("<td class=\"warn\">high</td>")

    const listed = await workspace.run(["search", "mem//", "--type", "memory", "--format", "json"])
    expect(listed.code, listed.stderr).toBe(0)
    expect(JSON.stringify(listed.json())).toContain("mem//memories/runner-ip")
    expect(JSON.stringify(listed.json())).not.toContain("knowledge/guide")

    expect((await workspace.run(["config", "set", "memory.highWaterItems", "3"])).code).toBe(0)
    expect((await workspace.run(["health", "--format", "json"])).code).toBe(0)
  })

  it("a bad water mark is refused with the key named (exit 78) and the file stays as it was", async () => {
    const zero = await workspace.run(["config", "set", "memory.highWaterBytes", "0", "--format", "json"])
    expect(zero.code).toBe(78)
    expect(zero.error().error.message).toContain("at memory.highWaterBytes")
    expect(zero.error().error.message).toContain("must be a whole number above 0, actual 0")
    const inverted = await workspace.run(["config", "set", "memory.lowWaterItems", "5", "--format", "json"])
    expect(inverted.code).toBe(78)
    expect(inverted.error().error.message).toContain("at memory.lowWaterItems")
    expect(inverted.error().error.message).toContain("must be below memory.highWaterItems (3)")
    expect((await workspace.run(["config", "get", "memory", "--format", "json"])).json().value).toEqual({ highWaterItems: 3 })
  })
})
