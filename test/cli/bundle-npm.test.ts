import { existsSync, readdirSync, readFileSync, writeFileSync } from "node:fs"
import { join } from "node:path"
import { afterAll, beforeAll, describe, expect, it } from "vitest"
import { makeWorkspace } from "../support/cli.js"
import { packageTarball, sha512, startNpmRegistry, tgz, type NpmRegistry } from "../support/npmRegistry.js"

// akm bundle add/list/update/remove with npm: sources against a local registry (issue "Bundles from git and npm", spec 02 §2 npm).

const workspace = makeWorkspace()
const marker = join(workspace.root, "postinstall-ran")

const kb = (version: string) =>
  packageTarball({
    "package.json": JSON.stringify({ name: "team-kb", version, scripts: { postinstall: `touch ${marker}` } }),
    "guides/deploy.md": `# Deploy guide\n\nHow to deploy, revision ${version}. Mentions the zanzibar procedure.\n`,
    "guides/static.md": "# Static page\n\nThe same in every version.\n",
    "README.md": `# team-kb ${version}\n`
  })

let registry: NpmRegistry

beforeAll(async () => {
  registry = await startNpmRegistry()
  registry.publish("team-kb", "1.0.0", kb("1.0.0"))
  registry.publish("team-kb", "2.0.0", kb("2.0.0"))
  registry.publish("evil-kb", "1.0.0", tgz([
    { path: "package/", type: "dir" },
    { path: "package/README.md", content: "# fine\n" },
    { path: "package/../../../escape.md", content: "pwned\n" }
  ]))
  // The local registry is on 127.0.0.1: allowed the way a user allows a trusted host (R-WEB-2).
  workspace.folder("config", { "config.yaml": `npm:\n  registry: "${registry.url}"\nwebsite:\n  allowHosts: ["127.0.0.1"]\n` })
})

afterAll(async () => {
  await registry.close()
  workspace.cleanup()
})

const listed = async (name: string) => {
  const r = await workspace.run(["bundle", "list", "--format", "json"])
  expect(r.code, r.stderr).toBe(0)
  return (r.json().bundles as Array<Record<string, unknown>>).find((b) => b.name === name)
}

const sources = () => join(workspace.cacheDir, "sources")

/** Where search finds the deploy guide, and what show reads for an item. */
const hitPath = async () => {
  const r = await workspace.run(["search", "zanzibar", "--format", "json"])
  expect(r.code, r.stderr).toBe(0)
  return (r.json().hits as Array<{ path: string }>)[0]?.path
}
const shown = async (ref: string) => {
  const r = await workspace.run(["show", ref, "--format", "json"])
  expect(r.code, r.stderr).toBe(0)
  return r.json() as { path: string; content?: string }
}

describe("akm bundle add npm:", () => {
  it("resolves ^1 against config npm.registry; list shows revision = version and the sha512 integrity", async () => {
    const r = await workspace.run(["bundle", "add", "npm:team-kb@^1"])
    expect(r.code, r.stderr).toBe(0)
    expect(r.json()).toMatchObject({ name: "team-kb", source: { kind: "npm", package: "team-kb", version: "^1" }, writable: false, revision: "1.0.0" })
    const bundle = await listed("team-kb")
    expect(bundle).toMatchObject({ revision: "1.0.0", integrity: sha512(kb("1.0.0")), root: join(sources(), "team-kb", "1.0.0") })
    expect(readdirSync(join(sources(), "team-kb"))).toEqual(["1.0.0"])
    // R-BUN-1: the package's postinstall is a line in a file, nothing more.
    expect(existsSync(marker)).toBe(false)
    expect(await hitPath()).toBe(join(sources(), "team-kb", "1.0.0", "guides", "deploy.md"))
  })

  it("--writable is refused for an npm source (R-WS-6): exit 2", async () => {
    const r = await workspace.run(["bundle", "add", "npm:team-kb", "--name", "rw", "--writable"])
    expect(r.code).toBe(2)
    expect(await listed("rw")).toBeUndefined()
  })

  it("a malicious tarball: exit non-zero naming the rule; no bundle, no cache copy", async () => {
    const config = readFileSync(join(workspace.configDir, "config.yaml"), "utf8")
    const r = await workspace.run(["bundle", "add", "npm:evil-kb"])
    expect(r.code).toBe(1)
    expect(r.error().error.code).toBe("materialize_failed")
    expect(r.error().error.message).toBe(`evil-kb: cannot materialize npm:evil-kb: tarball refused: "package/../../../escape.md": '..' path segment (escapes the package folder)`)
    expect(await listed("evil-kb")).toBeUndefined()
    expect(readFileSync(join(workspace.configDir, "config.yaml"), "utf8")).toBe(config)
    expect(existsSync(join(sources(), "evil-kb")) ? readdirSync(join(sources(), "evil-kb")) : []).toEqual([])
    expect(existsSync(join(workspace.root, "escape.md"))).toBe(false)
  })

  it("an unknown package: exit non-zero naming the registry", async () => {
    const r = await workspace.run(["bundle", "add", "npm:@acme/nothing-here"])
    expect(r.code).toBe(1)
    expect(r.stderr).toContain(`package @acme/nothing-here was not found at ${registry.url}`)
  })
})

describe("akm bundle update / remove with npm:", () => {
  it("a new matching version moves the pin; the old revision folder is pruned", async () => {
    registry.publish("team-kb", "1.1.0", kb("1.1.0"))
    const r = await workspace.run(["bundle", "update", "team-kb"])
    expect(r.code, r.stderr).toBe(0)
    expect(await listed("team-kb")).toMatchObject({ revision: "1.1.0", integrity: sha512(kb("1.1.0")), root: join(sources(), "team-kb", "1.1.0") })
    expect(readdirSync(join(sources(), "team-kb"))).toEqual(["1.1.0"])
    expect(await hitPath()).toBe(join(sources(), "team-kb", "1.1.0", "guides", "deploy.md"))
    // A file identical in both versions is read from the new folder too (npm pack stamps every file with one mtime).
    expect((await shown("team-kb//guides/static")).path).toBe(join(sources(), "team-kb", "1.1.0", "guides", "static.md"))
    expect(JSON.stringify(await shown("team-kb//guides/deploy"))).toContain("revision 1.1.0")
  })

  it("the registry down: update exits 1, the old revision stays recorded and searchable (R-BUN-2)", async () => {
    const config = readFileSync(join(workspace.configDir, "config.yaml"), "utf8")
    writeFileSync(join(workspace.configDir, "config.yaml"), config.replace(registry.url, "http://127.0.0.1:9"))
    try {
      const r = await workspace.run(["bundle", "update", "team-kb"])
      expect(r.code).toBe(1)
      expect(r.stderr).toContain("registry unreachable: GET http://127.0.0.1:9/team-kb")
      expect(await listed("team-kb")).toMatchObject({ revision: "1.1.0" })
      expect(existsSync(join(sources(), "team-kb", "1.1.0", "guides", "deploy.md"))).toBe(true)
      expect(await hitPath()).toBe(join(sources(), "team-kb", "1.1.0", "guides", "deploy.md"))
      expect(JSON.stringify(await shown("team-kb//guides/deploy"))).toContain("revision 1.1.0")
    } finally {
      writeFileSync(join(workspace.configDir, "config.yaml"), config)
    }
  })

  it("remove leaves no cache folder", async () => {
    const r = await workspace.run(["bundle", "remove", "team-kb", "-y"])
    expect(r.code, r.stderr).toBe(0)
    expect(existsSync(join(sources(), "team-kb"))).toBe(false)
    expect(await listed("team-kb")).toBeUndefined()
  })
})
