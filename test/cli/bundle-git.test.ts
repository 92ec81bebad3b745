import { existsSync, mkdirSync, readdirSync, renameSync } from "node:fs"
import { join } from "node:path"
import { pathToFileURL } from "node:url"
import { afterAll, beforeAll, describe, expect, it } from "vitest"
import { makeWorkspace } from "../support/cli.js"
import { startGitHttpServer, type GitHttpServer } from "../support/gitHttpServer.js"
import { git, makeGitRepo, treeDigest, type GitRepo } from "../support/gitRepo.js"

// akm bundle add/list/update/remove with git sources: local repositories (file:// and --git <path>)
// and a real smart-HTTP server (issue "Bundles from git and npm", spec 02 §2 git, R-BUN-1/2/3).

const workspace = makeWorkspace()
const gitHome = join(workspace.root, "git-home")
const repos = join(workspace.root, "repos")
let server: GitHttpServer
let local: GitRepo
let team: GitRepo
const teamBare = join(workspace.root, "served", "team.git")

beforeAll(async () => {
  mkdirSync(gitHome, { recursive: true })
  local = makeGitRepo(join(repos, "kb"), gitHome, {
    "README.md": "# KB\n",
    "guides/deploy.md": "# Deploy guide\n\nHow to deploy. Mentions the zanzibar procedure.\n"
  })
  local.git("tag", "-a", "v1", "-m", "first release")
  local.commit({ "guides/later.md": "# Later\n\nAdded after v1.\n" })
  team = makeGitRepo(join(repos, "team"), gitHome, { "notes/onboarding.md": "# Onboarding\n\nThe quetzalcoatl checklist for new people.\n" })
  git(workspace.root, gitHome, "clone", "-q", "--bare", team.dir, teamBare)
  team.git("remote", "add", "origin", teamBare)
  server = await startGitHttpServer(join(workspace.root, "served"), gitHome)
})

afterAll(async () => {
  await server.stop()
  workspace.cleanup()
})

const sources = () => join(workspace.cacheDir, "sources")

const listed = async (name: string) => {
  const r = await workspace.run(["bundle", "list", "--format", "json"])
  expect(r.code, r.stderr).toBe(0)
  return (r.json().bundles as Array<Record<string, unknown>>).find((b) => b.name === name)
}

const hitPaths = async (query: string) => {
  const r = await workspace.run(["search", query, "--format", "json"])
  expect(r.code, r.stderr).toBe(0)
  return (r.json().hits as Array<{ path: string }>).map((h) => h.path)
}

describe("akm bundle add with git sources", () => {
  it("file:///…: a pinned copy of HEAD at $CACHE/sources/<name>/<sha>; list shows revision = sha; search finds its files", async () => {
    const before = treeDigest(local.dir)
    const url = pathToFileURL(local.dir).href
    const r = await workspace.run(["bundle", "add", url])
    expect(r.code, r.stderr).toBe(0)
    const sha = local.sha()
    expect(r.json()).toMatchObject({ name: "kb", source: { kind: "git", url }, writable: false, revision: sha })
    expect(await listed("kb")).toMatchObject({ revision: sha, root: join(sources(), "kb", sha) })
    expect(await hitPaths("zanzibar")).toContain(join(sources(), "kb", sha, "guides", "deploy.md"))
    // Read directly from the repository's git directory: nothing in it changed.
    expect(treeDigest(local.dir)).toBe(before)
  })

  it("--git <relative path> --ref <annotated tag>: pins the tag's commit; the path is recorded absolute", async () => {
    const r = await workspace.run(["bundle", "add", "--git", "repos/kb", "--ref", "v1", "--name", "kb-v1"])
    expect(r.code, r.stderr).toBe(0)
    const tagged = local.sha("v1")
    expect(await listed("kb-v1")).toMatchObject({ source: { kind: "git", url: local.dir, ref: "v1" }, revision: tagged, root: join(sources(), "kb-v1", tagged) })
    expect(readdirSync(join(sources(), "kb-v1", tagged, "guides"))).toEqual(["deploy.md"])
  })

  it("a plain http repository at 127.0.0.1: refused without --allow-insecure, then by the address policy naming the address, with no cache left (R-WEB-1, R-WEB-2)", async () => {
    const url = server.url("team.git")
    const insecure = await workspace.run(["bundle", "add", url])
    expect(insecure.code).not.toBe(0)
    expect(insecure.stderr).toContain("plain http")
    expect(insecure.stderr).toContain("--allow-insecure")
    const refused = await workspace.run(["bundle", "add", url, "--allow-insecure"])
    expect(refused.code).not.toBe(0)
    expect(refused.stderr).toContain("127.0.0.1 is a loopback address")
    expect(refused.error().error.hint).toContain('add "127.0.0.1" to website.allowHosts in config.yaml')
    expect(existsSync(join(sources(), "team"))).toBe(false)
    expect(await listed("team")).toBeUndefined()
  })

  it("a repository from a smart-HTTP server (host in website.allowHosts, --allow-insecure saved): cloned into the cache, listed with its sha, searchable", async () => {
    const url = server.url("team.git")
    const set = await workspace.run(["config", "set", "website.allowHosts", '["127.0.0.1"]'])
    expect(set.code, set.stderr).toBe(0)
    const r = await workspace.run(["bundle", "add", url, "--allow-insecure"])
    expect(r.code, r.stderr).toBe(0)
    expect(await listed("team")).toMatchObject({ source: { kind: "git", url, allowInsecure: true }, revision: team.sha(), root: join(sources(), "team", team.sha()) })
    expect(readdirSync(join(sources(), "team")).sort()).toEqual([".git-cache", team.sha()].sort())
    expect(await hitPaths("quetzalcoatl")).toContain(join(sources(), "team", team.sha(), "notes", "onboarding.md"))
  })

  it("--git on a folder that is not a repository: exit 1 with the reason; nothing recorded or cached", async () => {
    workspace.folder("plain", { "a.md": "# A\n" })
    const r = await workspace.run(["bundle", "add", "--git", "plain", "--format", "json"])
    expect(r.code).toBe(1)
    expect(r.error().error.message).toContain("is not a git repository")
    expect(await listed("plain")).toBeUndefined()
    expect(existsSync(join(sources(), "plain"))).toBe(false)
  })
})

describe("akm bundle update with git sources", () => {
  it("a new commit moves the pin; the old revision is pruned; search sees the new file", async () => {
    const old = local.sha()
    const next = local.commit({ "guides/rollback.md": "# Rollback\n\nThe xylophone rollback plan.\n" })
    const r = await workspace.run(["bundle", "update", "kb"])
    expect(r.code, r.stderr).toBe(0)
    expect(await listed("kb")).toMatchObject({ revision: next, root: join(sources(), "kb", next) })
    expect(existsSync(join(sources(), "kb", old))).toBe(false)
    expect(await hitPaths("xylophone")).toContain(join(sources(), "kb", next, "guides", "rollback.md"))
  })

  it("a pushed commit on the served repository moves the http bundle's pin", async () => {
    const next = team.commit({ "notes/oncall.md": "# On call\n\nThe marimba rota.\n" })
    team.git("push", "-q", "origin", "main")
    const r = await workspace.run(["bundle", "update", "team"])
    expect(r.code, r.stderr).toBe(0)
    expect(await listed("team")).toMatchObject({ revision: next })
    expect(readdirSync(join(sources(), "team")).sort()).toEqual([".git-cache", next].sort())
    expect(await hitPaths("marimba")).toContain(join(sources(), "team", next, "notes", "oncall.md"))
  })

  it("a deleted repository: exit 1, the old revision stays listed (stale) and searchable (R-BUN-2)", async () => {
    const kept = local.sha()
    renameSync(local.dir, `${local.dir}-gone`)
    try {
      const r = await workspace.run(["bundle", "update", "kb"])
      expect(r.code).toBe(1)
      expect(r.stderr).toContain("does not exist")
      expect(await listed("kb")).toMatchObject({ revision: kept, root: join(sources(), "kb", kept), stale: { reason: expect.stringContaining("does not exist") } })
      expect(await hitPaths("xylophone")).toContain(join(sources(), "kb", kept, "guides", "rollback.md"))
    } finally {
      renameSync(`${local.dir}-gone`, local.dir)
    }
  })

  it("a stopped server: exit 1 naming the URL, the old revision stays listed and searchable", async () => {
    const kept = team.sha()
    const url = server.url("team.git")
    await server.stop()
    const r = await workspace.run(["bundle", "update", "team"])
    expect(r.code).toBe(1)
    expect(r.stderr).toContain(`network error reaching ${url}`)
    expect(await listed("team")).toMatchObject({ revision: kept, stale: { reason: expect.stringContaining(url) } })
    expect(await hitPaths("marimba")).toContain(join(sources(), "team", kept, "notes", "oncall.md"))
  })
})

describe("akm bundle remove with git sources", () => {
  it("removes the cache copy (revisions and .git-cache) and never the user's repository (R-BUN-3)", async () => {
    for (const name of ["kb", "kb-v1", "team"]) {
      const r = await workspace.run(["bundle", "remove", name, "-y"])
      expect(r.code, r.stderr).toBe(0)
      expect(existsSync(join(sources(), name))).toBe(false)
      expect(await listed(name)).toBeUndefined()
    }
    expect(local.sha()).toMatch(/^[0-9a-f]{40}$/)
    expect(existsSync(join(local.dir, "guides", "deploy.md"))).toBe(true)
  })
})
