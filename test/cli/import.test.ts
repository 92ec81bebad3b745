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

  it("a note from another format keeps its identity: an OKF Runbook maps to knowledge and keeps its title (issue 15 item 8)", async () => {
    const source = workspace.folder("okf", {
      "disk-full.md": "---\ntype: Runbook\ntitle: Disk full on a Linux host\ndescription: Freeing space safely\n---\n\n# Steps\n\nFree space.\n"
    })
    const r = await workspace.run(["import", join(source, "disk-full.md")])
    expect(r.code, r.stderr).toBe(0)
    expect(r.json()).toMatchObject({ ref: "mine//knowledge/disk-full" })
    const written = readFileSync(r.json().path, "utf8")
    expect(written).toContain("title: Disk full on a Linux host\n")
    expect(written).toContain("type: Runbook\n")
    const shown = await workspace.run(["show", "mine//knowledge/disk-full", "--level", "card"])
    expect(shown.json()).toMatchObject({ name: "Disk full on a Linux host", type: "knowledge" })
    // A type akm has keeps its directory; into an OKF bundle the type stays verbatim.
    const lesson = workspace.folder("okf2", { "flaky.md": "---\ntype: Lesson\ntitle: Flaky tests\n---\nRetry less.\n" })
    const flaky = await workspace.run(["import", join(lesson, "flaky.md")])
    expect(flaky.json().files).toEqual(["lessons/flaky.md"])
    expect(readFileSync(flaky.json().path, "utf8")).not.toContain("type:")
    expect((await workspace.run(["bundle", "create", "wiki", "--adapter", "okf"])).code).toBe(0)
    const okf = await workspace.run(["import", join(source, "disk-full.md"), "--bundle", "wiki"])
    expect(okf.code, okf.stderr).toBe(0)
    expect(readFileSync(okf.json().path, "utf8")).toMatch(/^---\ntype: Runbook\ntitle: Disk full on a Linux host\n/)
  })

  it("anything but a local file is a usage error (exit 2)", async () => {
    const r = await workspace.run(["import", "https://example.com/page.md"])
    expect(r.code).toBe(2)
    expect(r.error().error.hint).toContain("local files")
    expect((await workspace.run(["import", join(docs, "missing.md")])).code).toBe(2)
  })
})
