import { execFileSync } from "node:child_process"
import { readdirSync, rmSync } from "node:fs"
import { join } from "node:path"
import { afterAll, describe, expect, it } from "vitest"
import { makeWorkspace, repoRoot } from "../support/cli.js"

// bin/akm.js turns akm's V8 flags for index builds on (bin/v8Flags.cjs,
// docs/decisions/0059-v8-flags.md) when `akm index` or `akm bundle add`
// reaches the full CLI. V8 checks a code cache against the flags, so a cache
// the launcher writes in such a run must still be accepted by a process that
// never set them (every other command).

const cli = join(repoRoot, "dist", "cli")
const mainCaches = () => readdirSync(cli).filter((name) => name.startsWith("main-") && name.endsWith(`-${process.version}-${process.arch}.cache`))

/** Whether a process with V8's default flags accepts the cache for dist/cli/main.cjs, compiled as bin/akm.js compiles it. */
const acceptedByDefaultProcess = (cache: string): boolean => {
  const script = `
    const { readFileSync } = require("node:fs"); const vm = require("node:vm")
    const source = readFileSync(${JSON.stringify(join(cli, "main.cjs"))}, "utf8")
    const compiled = new vm.Script("(function (exports, require, module, __filename, __dirname) {" + source + "\\n})", { filename: "main.cjs", cachedData: readFileSync(${JSON.stringify(join(cli, cache))}) })
    process.stdout.write(String(compiled.cachedDataRejected === false))`
  return execFileSync(process.execPath, ["-e", script], { encoding: "utf8" }) === "true"
}

describe("V8 flags of index builds", () => {
  const ws = makeWorkspace()
  afterAll(ws.cleanup)

  it("a code cache written by an index build through the full CLI is accepted without the flags", async () => {
    const notes = ws.folder("notes", { "guide.md": "---\ndescription: A guide\n---\n# Guide\n\nHow to deploy.\n" })
    // Made at build time by the warm-up; removed so that the next run through the full CLI writes it.
    expect((await ws.run(["info", "--format", "json"])).code).toBe(0)
    for (const name of mainCaches()) rmSync(join(cli, name), { force: true })
    const added = await ws.run(["bundle", "add", notes, "--name", "notes", "--format", "json"])
    expect(added.code).toBe(0)
    const written = mainCaches()
    expect(written.length).toBeGreaterThan(0)
    for (const name of written) expect(acceptedByDefaultProcess(name)).toBe(true)
  }, 60_000)
})
