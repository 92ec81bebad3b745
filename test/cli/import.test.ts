import { readFileSync } from "node:fs"
import { join } from "node:path"
import { pathToFileURL } from "node:url"
import { afterAll, beforeAll, describe, expect, it } from "vitest"
import { makeWorkspace } from "../support/cli.js"

// akm import end to end (issue 7, spec 05 §3).

describe("akm import", () => {
  const workspace = makeWorkspace()
  afterAll(workspace.cleanup)
  const docs = workspace.folder("docs", { "http-caching.md": "# HTTP caching\n\nUse ETags.\n" })

  beforeAll(async () => {
    expect((await workspace.run(["bundle", "create", "mine", "--set-default"])).code).toBe(0)
  })

  it("a relative path resolves against the caller's directory and becomes knowledge", async () => {
    const r = await workspace.run(["import", "http-caching.md"], { cwd: docs })
    expect(r.code, r.stderr).toBe(0)
    expect(r.json()).toMatchObject({ status: "accepted", ref: "mine//knowledge/http-caching", files: ["knowledge/http-caching.md"] })
    expect(readFileSync(r.json().path, "utf8")).toContain("# HTTP caching\n\nUse ETags.\n")
  })

  it("a file:// URL with --type; a taken name is a conflict", async () => {
    const r = await workspace.run(["import", pathToFileURL(join(docs, "http-caching.md")).href, "--type", "lesson"])
    expect(r.code, r.stderr).toBe(0)
    expect(r.json().files).toEqual(["lessons/http-caching.md"])
    const again = await workspace.run(["import", join(docs, "http-caching.md"), "--type", "lesson"])
    expect(again.code).toBe(1)
    expect(again.error().error.code).toBe("conflict")
  })

  it("anything but a local file is a usage error (exit 2)", async () => {
    const r = await workspace.run(["import", "https://example.com/page.md"])
    expect(r.code).toBe(2)
    expect(r.error().error.hint).toContain("local files")
    expect((await workspace.run(["import", join(docs, "missing.md")])).code).toBe(2)
  })
})
