import { writeFileSync } from "node:fs"
import { join } from "node:path"
import { afterAll, beforeAll, describe, expect, it } from "vitest"
import { installCommand, matchHits, staticHits } from "../../src/domain/Registry.js"
import { makeWorkspace, type Workspace } from "../support/cli.js"
import { redirect, respond, startServer, type TestServer } from "../support/httpTestServer.js"

// akm registry search (spec 02 §3): static JSON indexes and the npm search API, on a local server.

const json = (value: unknown, status = 200) => respond(JSON.stringify(value), "application/json", status)

const index = {
  bundles: [
    { name: "k8s-runbooks", description: "Runbooks for Kubernetes incidents", source: "npm:@acme/k8s-runbooks@^1", tags: ["kubernetes", "ops"] },
    { name: "team-kb", description: "The platform team's knowledge, incl. kubernetes notes", source: "https://git.example.com/acme/kb.git", adapter: "okf" },
    { name: "docs", description: "Product docs", source: "website:https://docs.example.com/" },
    { name: "sneaky", description: "points at a local path kubernetes", source: "~/.ssh" },
    { name: "broken", source: "npm:x" },
    { name: "evil\u001b[31m", description: "kubernetes \u0007bell", source: "github:acme/evil" }
  ]
}

/** The test server is on 127.0.0.1: allowed the way a user allows a trusted host (website.allowHosts), unless `allowLoopback` is false. */
const configure = (w: Workspace, registries: ReadonlyArray<Record<string, string>>, allowLoopback = true) =>
  writeFileSync(
    join(w.configDir, "config.yaml"),
    `${allowLoopback ? 'website:\n  allowHosts: ["127.0.0.1"]\n' : ""}registries:\n${registries.map((r) => `  - ${JSON.stringify(r)}`).join("\n")}\n`
  )

describe("akm registry search", () => {
  const workspace = makeWorkspace()
  let server: TestServer
  afterAll(async () => {
    await server.close()
    workspace.cleanup()
  })
  beforeAll(async () => {
    server = await startServer({
      "/index.json": json(index),
      "/not-an-index.json": json({ items: [] }),
      "/moved.json": redirect("http://169.254.169.254/latest/meta-data/"),
      "/-/v1/search": json({
        objects: [
          { package: { name: "@acme/agent-skills", description: "Skills for agents", keywords: ["akm-bundle", "skills"] } },
          { package: { name: "Bad Name!", description: "refused" } }
        ]
      })
    })
    workspace.folder("config")
  })

  it("no registries configured: exit 0, an empty list, and a hint with a config example on stderr", async () => {
    const r = await workspace.run(["registry", "search", "kubernetes"])
    expect(r.code, r.stderr).toBe(0)
    expect(r.json()).toEqual({ schemaVersion: 1, query: "kubernetes", registries: [], hits: [], failed: [], ok: true })
    expect(r.stderr).toContain("registries:")
    expect(r.stderr).toContain("url:")
  })

  it("a static index: matching bundles with their install command, best first; unusable entries skipped and control characters stripped", async () => {
    configure(workspace, [{ name: "team", url: `${server.url}/index.json` }])
    const r = await workspace.run(["registry", "search", "Kubernetes"])
    expect(r.code, r.stderr).toBe(0)
    const result = r.json()
    expect(result.registries).toEqual([{ name: "team", kind: "static", url: `${server.url}/index.json`, hits: 3, skipped: 2 }])
    expect(result.hits.map((h: { name: string }) => h.name)).toEqual(["k8s-runbooks", "evil [31m", "team-kb"])
    expect(result.hits[0]).toEqual({
      registry: "team",
      name: "k8s-runbooks",
      description: "Runbooks for Kubernetes incidents",
      source: "npm:@acme/k8s-runbooks@^1",
      tags: ["kubernetes", "ops"],
      install: "akm bundle add 'npm:@acme/k8s-runbooks@^1'"
    })
    expect(result.hits[2].install).toBe("akm bundle add https://git.example.com/acme/kb.git --adapter okf")
    expect(JSON.stringify(result)).not.toMatch(/\\u001b|\\u0007/)

    const text = await workspace.run(["registry", "search", "runbooks", "--format", "text"])
    expect(text.code, text.stderr).toBe(0)
    expect(text.stdout).toContain("k8s-runbooks")
    expect(text.stdout).toContain("akm bundle add 'npm:@acme/k8s-runbooks@^1'")
    expect(text.stdout).not.toContain("team-kb")
  })

  it("registry hits never reach local search", async () => {
    const r = await workspace.run(["search", "kubernetes"])
    expect(r.code, r.stderr).toBe(0)
    expect(r.json().hits).toEqual([])
  })

  it("an npm registry: the search API with keyword akm-bundle; --registry picks one", async () => {
    configure(workspace, [{ name: "team", url: `${server.url}/index.json` }, { name: "npm", kind: "npm", url: `${server.url}/` }])
    const before = server.requests.length
    const r = await workspace.run(["registry", "search", "agent skills", "--registry", "npm"])
    expect(r.code, r.stderr).toBe(0)
    expect(r.json()).toMatchObject({
      registries: [{ name: "npm", kind: "npm", hits: 1, skipped: 1 }],
      hits: [{ registry: "npm", name: "@acme/agent-skills", source: "npm:@acme/agent-skills", tags: ["skills"], install: "akm bundle add npm:@acme/agent-skills" }]
    })
    const asked = server.requests.slice(before)
    expect(asked).toHaveLength(1)
    expect(new URL(asked[0]!.path, server.url).searchParams.get("text")).toBe("agent skills keywords:akm-bundle")
  })

  it("an unknown --registry is not found (exit 1) and lists the configured ones", async () => {
    const r = await workspace.run(["registry", "search", "x", "--registry", "nope"])
    expect(r.code).toBe(1)
    expect(r.error().error).toMatchObject({ code: "not_found", hint: expect.stringContaining("team, npm") })
  })

  it("registries go through the bundle HTTP client: 127.0.0.1 refused without website.allowHosts, a redirect to the metadata address refused with it (R-WEB-2, R-WEB-3)", async () => {
    const requests = server.requests.length
    configure(workspace, [{ name: "team", url: `${server.url}/index.json` }], false)
    const refused = await workspace.run(["registry", "search", "kubernetes"])
    expect(refused.code).toBe(1)
    expect(refused.error().error).toMatchObject({ code: "registry_unavailable", message: expect.stringContaining("127.0.0.1 is a loopback address") })
    expect(refused.error().error.hint).toContain('add "127.0.0.1" to website.allowHosts in config.yaml')
    expect(server.requests.length).toBe(requests)

    configure(workspace, [{ name: "moved", url: `${server.url}/moved.json` }])
    const bounced = await workspace.run(["registry", "search", "kubernetes"])
    expect(bounced.code).toBe(1)
    expect(bounced.error().error.message).toContain("169.254.169.254 is a link-local address")
  })

  it("an unreachable registry is an error naming its URL (exit 1)", async () => {
    const dead = await startServer({})
    const url = `${dead.url}/index.json`
    await dead.close()
    configure(workspace, [{ name: "gone", url }])
    const r = await workspace.run(["registry", "search", "kubernetes"])
    expect(r.code).toBe(1)
    expect(r.stdout).toBe("")
    expect(r.error().error).toMatchObject({ code: "registry_unavailable", message: expect.stringContaining(url) })
    expect(r.error().error.message).toContain("unreachable")
  })

  it("one failing registry among several: the others' hits are printed, the failure is reported, exit 1", async () => {
    configure(workspace, [{ name: "team", url: `${server.url}/index.json` }, { name: "odd", url: `${server.url}/not-an-index.json` }, { name: "missing", url: `${server.url}/404.json` }])
    const r = await workspace.run(["registry", "search", "runbooks"])
    expect(r.code).toBe(1)
    const result = r.json()
    expect(result.hits.map((h: { name: string }) => h.name)).toEqual(["k8s-runbooks"])
    expect(result.failed).toEqual([
      { registry: "odd", url: `${server.url}/not-an-index.json`, reason: "is not a registry index (no \"bundles\" list)" },
      { registry: "missing", url: `${server.url}/404.json`, reason: "answered HTTP 404" }
    ])
    expect(result.ok).toBe(false)
    expect(r.stderr).toContain(`${server.url}/404.json`)
  })
})

describe("registry matching (domain)", () => {
  const { hits } = staticHits("r", index.bundles)

  it("every word must occur in the name, description or tags; name matches rank first", () => {
    expect(matchHits("kubernetes runbooks", hits).map((h) => h.name)).toEqual(["k8s-runbooks"])
    expect(matchHits("KB", hits).map((h) => h.name)).toEqual(["team-kb"])
    expect(matchHits("", hits)).toHaveLength(hits.length)
    expect(matchHits("nothing-like-this", hits)).toEqual([])
  })

  it("install commands are quoted for a shell", () => {
    expect(installCommand("npm:@acme/kb@^1")).toBe("akm bundle add 'npm:@acme/kb@^1'")
    expect(installCommand("github:acme/kb#v1")).toBe("akm bundle add 'github:acme/kb#v1'")
    expect(installCommand("https://x.example/k'b.git")).toBe("akm bundle add 'https://x.example/k'\\''b.git'")
  })
})
