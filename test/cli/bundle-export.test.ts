import { readFileSync } from "node:fs"
import { join } from "node:path"
import { afterAll, beforeAll, describe, expect, it } from "vitest"
import { makeWorkspace } from "../support/cli.js"

// akm bundle export end to end (spec 02 "website": export; spec 05: one proposal, reviewed and accepted).

describe("akm bundle export", () => {
  const workspace = makeWorkspace()
  afterAll(workspace.cleanup)
  const web = workspace.folder("docs-snapshot", {
    "manifest.json": JSON.stringify({
      url: "https://docs.example.org/",
      fetchedAt: "2026-05-01T10:00:00Z",
      revision: "rev-7",
      pages: [
        { path: "guide/frobnicate.md", url: "https://docs.example.org/guide/frobnicate", finalUrl: "https://docs.example.org/guide/frobnicate/", title: "Frobnicating widgets", fetchedAt: "2026-05-01T10:00:01Z" },
        { path: "api/errors.md", url: "https://docs.example.org/api/errors", title: "Error codes" }
      ]
    }),
    "guide/frobnicate.md": "# Frobnicating widgets\n\nA widget is frobnicated with `example frob --hard`.\n",
    "api/errors.md": "# Error codes\n\nE42 means the frobnicator is cold.\n"
  })

  beforeAll(async () => {
    expect((await workspace.run(["bundle", "add", web, "--name", "web", "--adapter", "website-snapshot"])).code).toBe(0)
    expect((await workspace.run(["bundle", "create", "mine"])).code).toBe(0)
    expect((await workspace.run(["bundle", "add", workspace.folder("frozen", { "note.md": "# Note\n" }), "--name", "frozen", "--read-only"])).code).toBe(0)
  })

  it("export makes one pending proposal; accept writes it; search finds the item; show carries its provenance", async () => {
    const dry = await workspace.run(["bundle", "export", "web", "--to", "mine", "--pages", "/guide/**", "--dry-run", "--format", "json"])
    expect(dry.code, dry.stderr).toBe(0)
    expect(dry.json()).toMatchObject({ dryRun: true, id: null, files: ["knowledge/guide/frobnicate.md"] })

    const r = await workspace.run(["bundle", "export", "web", "--to", "mine", "--pages", "/guide/**", "--format", "json"])
    expect(r.code, r.stderr).toBe(0)
    const result = r.json()
    expect(result).toMatchObject({ schemaVersion: 1, status: "pending", bundle: "mine", files: ["knowledge/guide/frobnicate.md"], pages: [{ ref: "mine//knowledge/guide/frobnicate", url: "https://docs.example.org/guide/frobnicate/" }] })
    expect(result.hint).toContain(`akm proposal accept ${result.id.slice(0, 8)}`)
    const listed = (await workspace.run(["proposal", "list", "--status", "pending", "--format", "json"])).json()
    expect(listed.proposals).toEqual([expect.objectContaining({ id: result.id, recipe: "export", changeClass: "semantic" })])

    const accepted = await workspace.run(["proposal", "accept", result.id.slice(0, 8), "-y", "--format", "json"])
    expect(accepted.code, accepted.stderr).toBe(0)

    const search = await workspace.run(["search", "frobnicated", "widget", "--format", "json"])
    expect(search.code, search.stderr).toBe(0)
    expect(search.json().hits.map((h: { ref: string }) => h.ref)).toContain("mine//knowledge/guide/frobnicate")

    const show = await workspace.run(["show", "mine//knowledge/guide/frobnicate", "--format", "json"])
    expect(show.code, show.stderr).toBe(0)
    const content: string = show.json().content
    expect(content).toContain("url: https://docs.example.org/guide/frobnicate/")
    expect(content).toContain("ref: web//guide/frobnicate")
    expect(content).toContain("revision: rev-7")
    expect(content).toContain("fetchedAt: 2026-05-01T10:00:01Z")

    const lint = await workspace.run(["lint", "--bundle", "mine", "--format", "json"])
    expect(lint.code, lint.stdout).toBe(0)
  })

  it("the text view names the files and the accept command", async () => {
    const r = await workspace.run(["bundle", "export", "web", "--to", "mine", "--pages", "api/*.md", "--format", "text"])
    expect(r.code, r.stderr).toBe(0)
    expect(r.stdout).toContain("mine//knowledge/api/errors")
    expect(r.stdout).toContain("← https://docs.example.org/api/errors")
    expect(r.stdout).toMatch(/akm proposal accept [0-9a-f]{8}/)
  })

  it("refusals: a non-website source and a glob matching nothing are usage errors (exit 2); a read-only destination is a conflict (exit 1)", async () => {
    const notWeb = await workspace.run(["bundle", "export", "mine", "--to", "frozen", "--format", "json"])
    expect(notWeb.code).toBe(2)
    expect(notWeb.error().error.message).toContain("akm adapter, not website-snapshot")
    const none = await workspace.run(["bundle", "export", "web", "--to", "mine", "--pages", "blog/**", "--format", "json"])
    expect(none.code).toBe(2)
    expect(none.error().error.hint).toContain("guide/frobnicate.md")
    const frozen = await workspace.run(["bundle", "export", "web", "--to", "frozen", "--format", "json"])
    expect(frozen.code).toBe(1)
    expect(frozen.error().error).toMatchObject({ code: "conflict", message: "bundle 'frozen' is read-only" })
    expect(readFileSync(join(web, "api/errors.md"), "utf8")).toContain("E42")
  })
})
