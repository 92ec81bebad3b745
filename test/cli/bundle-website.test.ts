import { mkdirSync, writeFileSync } from "node:fs"
import { join } from "node:path"
import { afterAll, beforeAll, describe, expect, it } from "vitest"
import { makeWorkspace, type Workspace } from "../support/cli.js"
import { startServer, type Handler, type TestServer } from "../support/httpTestServer.js"

// Spec 02 "website" end to end through the built CLI: a local site on
// 127.0.0.1, allowed only through config website.allowHosts (R-WEB-2), crawled
// into a snapshot that is searchable; refreshes make new revisions and a
// failed refresh keeps the old one (R-WEB-7, R-BUN-2).

const filler = "The snapshot of this small site is indexed by akm so that agents can search it offline. "

const site = { guide: "The zanzibarquokka setting controls how the example server stores its cache." }

const page = (title: string, body: string, links: ReadonlyArray<string> = []): string =>
  `<!doctype html><html><head><title>${title} | Example Docs</title></head><body>
<nav>${links.map((l) => `<a href="${l}">${l}</a>`).join(" ")}</nav>
<main><h1>${title}</h1><p>${body}</p><p>${filler}</p></main><footer>footer text</footer></body></html>`

const routes: Readonly<Record<string, Handler>> = {
  "/": (_req, res) => void res.writeHead(200, { "content-type": "text/html" }).end(page("Example Docs", "Welcome to the docs.", ["/guide/cache", "/about"])),
  "/guide/cache": (_req, res) => void res.writeHead(200, { "content-type": "text/html" }).end(page("Cache guide", site.guide, ["/"])),
  "/about": (_req, res) => void res.writeHead(200, { "content-type": "text/html" }).end(page("About", "Who writes these docs."))
}

const allowLocal = (ws: Workspace) => {
  mkdirSync(ws.configDir, { recursive: true })
  writeFileSync(join(ws.configDir, "config.yaml"), 'website:\n  allowHosts: ["127.0.0.1"]\n')
}

describe("akm bundle add --website", () => {
  let ws: Workspace
  let server: TestServer

  beforeAll(async () => {
    ws = makeWorkspace()
    allowLocal(ws)
    server = await startServer(routes)
  })
  afterAll(async () => {
    await server.close()
    ws.cleanup()
  })

  it("crawls the site into a snapshot whose pages are searchable and showable", async () => {
    const add = await ws.run(["bundle", "add", `${server.url}/`, "--website", "--allow-insecure", "--name", "docs", "--format", "json"])
    expect(add.code, add.stderr).toBe(0)
    expect(add.json()).toMatchObject({ name: "docs", adapter: "website-snapshot", source: { kind: "website" }, items: 3 })

    const search = await ws.run(["search", "zanzibarquokka", "--format", "json"])
    expect(search.code, search.stderr).toBe(0)
    expect(search.json().hits.map((h: { ref: string }) => h.ref)).toEqual(["docs//guide/cache"])

    const show = await ws.run(["show", "docs//guide/cache", "--format", "json"])
    expect(show.code, show.stderr).toBe(0)
    expect(show.json()).toMatchObject({ ref: "docs//guide/cache", type: "website", name: "Cache guide" })
    expect(show.json().content).toContain("zanzibarquokka")
    expect(show.json().content).not.toContain("footer text")

    const list = await ws.run(["bundle", "list", "--format", "json"])
    expect(list.json().bundles).toMatchObject([{ name: "docs", revision: expect.stringMatching(/^\d{8}T\d{6}\.\d{3}Z-[0-9a-f]{8}$/) }])
  })

  it("bundle update makes a new revision with the changed text; a dead server keeps the old one, marked stale", async () => {
    const before = (await ws.run(["bundle", "show", "docs", "--format", "json"])).json()
    site.guide = "The quetzalwombat setting replaced the old cache option."
    const update = await ws.run(["bundle", "update", "docs", "--format", "json"])
    expect(update.code, update.stderr).toBe(0)
    const after = (await ws.run(["bundle", "show", "docs", "--format", "json"])).json()
    expect(after.revision).not.toBe(before.revision)
    expect((await ws.run(["search", "quetzalwombat", "--format", "json"])).json().hits.map((h: { ref: string }) => h.ref)).toEqual(["docs//guide/cache"])
    expect((await ws.run(["search", "zanzibarquokka", "--format", "json"])).json().hits).toEqual([])

    await server.close()
    const failed = await ws.run(["bundle", "update", "docs"])
    expect(failed.code).toBe(1)
    expect(failed.stderr).toMatch(/ECONNREFUSED|network error/)
    const kept = (await ws.run(["bundle", "show", "docs", "--format", "json"])).json()
    expect(kept.revision).toBe(after.revision)
    expect(kept.stale).toMatchObject({ reason: expect.any(String) })
    const stillThere = await ws.run(["search", "quetzalwombat", "--format", "json"])
    expect(stillThere.json().hits.map((h: { ref: string }) => h.ref)).toEqual(["docs//guide/cache"])
  })
})

describe("akm bundle add --website without website.allowHosts", () => {
  it("refuses the local server, naming the address class, and records nothing (R-WEB-2)", async () => {
    const ws = makeWorkspace()
    const server = await startServer(routes)
    try {
      const add = await ws.run(["bundle", "add", `${server.url}/`, "--website", "--allow-insecure", "--name", "docs"])
      expect(add.code).not.toBe(0)
      expect(add.stderr).toContain("127.0.0.1 is a loopback address")
      expect(add.stderr).not.toContain("R-WEB")
      expect(add.stderr).toContain("website.allowHosts")
      expect(server.requests).toEqual([])
      expect((await ws.run(["bundle", "list", "--format", "json"])).json().bundles).toEqual([])
    } finally {
      await server.close()
      ws.cleanup()
    }
  })
})
