import * as fs from "node:fs"
import * as os from "node:os"
import * as path from "node:path"
import { Effect, Either, Schema } from "effect"
import { afterAll, beforeAll, describe, expect, it } from "vitest"
import { AkmConfig, type BundleSource } from "../../../src/domain/Config.js"
import { makeGitMaterializer } from "../../../src/layers/materializers/MaterializerGit.js"
import { makeNpmMaterializer } from "../../../src/layers/materializers/MaterializerNpm.js"
import { makeWebsiteMaterializer } from "../../../src/layers/materializers/MaterializerWebsite.js"
import type { MaterializerContext } from "../../../src/layers/materializers/SourceMaterializer.js"
import type { Materialized, MaterializeFailed } from "../../../src/services/Materializer.js"
import { startGitHttpServer, type GitHttpServer } from "../../support/gitHttpServer.js"
import { git, makeGitRepo } from "../../support/gitRepo.js"
import { redirect, respond, startServer, type TestServer } from "../../support/httpTestServer.js"
import { packageTarball, sha512, tgz } from "../../support/npmRegistry.js"
import { addressClass, forbiddenOrigins } from "./ssrfTargets.js"

// The address policy for every bundle fetch (spec 01 §6, R-WEB-1..3, spec 10 §3 SSRF matrix):
// git over http(s) and npm registries and tarballs go through the one bundle HTTP client.

const allowLoopback = { website: { allowHosts: ["127.0.0.1"] } }

let root: string
let sourcesDir: string
let gitServer: GitHttpServer
let repoUrl: string
let registry: TestServer
let redirector: TestServer

const kb = packageTarball({ "package.json": JSON.stringify({ name: "kb", version: "1.0.0" }), "README.md": "# kb\n" })

/** A packument whose one version's tarball is at `tarball`. */
const packument = (name: string, tarball: string, bytes: Buffer = kb) =>
  JSON.stringify({ name, "dist-tags": { latest: "1.0.0" }, versions: { "1.0.0": { name, version: "1.0.0", dist: { tarball, integrity: sha512(bytes) } } } })

const context = (config: unknown): MaterializerContext => ({
  sourcesDir,
  configDir: root,
  progress: () => Effect.void,
  progressDone: () => Effect.void,
  config: Effect.succeed(Schema.decodeUnknownSync(AkmConfig)(config))
})

type Outcome = Either.Either<Materialized, MaterializeFailed>

const npm = (bundle: string, pkg: string, config: unknown = allowLoopback): Promise<Outcome> =>
  Effect.runPromise(Effect.either(makeNpmMaterializer(context(config)).materialize(bundle, { kind: "npm", package: pkg, registry: registry.url }, {})))

const gitAdd = (bundle: string, source: Omit<Extract<BundleSource, { kind: "git" }>, "kind">, config: unknown = allowLoopback): Promise<Outcome> =>
  Effect.runPromise(Effect.either(makeGitMaterializer(context(config)).materialize(bundle, { kind: "git", ...source }, {})))

const website = (bundle: string, url: string, config: unknown = allowLoopback): Promise<Outcome> =>
  Effect.runPromise(Effect.either(makeWebsiteMaterializer(context(config)).materialize(bundle, { kind: "website", url, allowInsecure: true }, {})))

const failed = (outcome: Outcome): MaterializeFailed => {
  if (Either.isRight(outcome)) throw new Error(`expected a refusal, got revision ${outcome.right.revision}`)
  return outcome.left
}

/** Nothing of a failed first install is left: no revision, no staging, no empty bundle folder. */
const noCache = (bundle: string) => expect(fs.existsSync(path.join(sourcesDir, bundle))).toBe(false)

beforeAll(async () => {
  root = fs.realpathSync(fs.mkdtempSync(path.join(process.env.AKM_TEST_WORKER_DIR ?? os.tmpdir(), "akm-ssrf-")))
  sourcesDir = path.join(root, "cache", "sources")
  fs.mkdirSync(sourcesDir, { recursive: true })
  const home = path.join(root, "home")
  fs.mkdirSync(home)
  const work = makeGitRepo(path.join(root, "work", "team"), home, { "README.md": "# team\n" })
  git(root, home, "clone", "-q", "--bare", work.dir, path.join(root, "served", "team.git"))
  gitServer = await startGitHttpServer(path.join(root, "served"), home)
  repoUrl = gitServer.url("team.git")

  // A registry on 127.0.0.1 (allowed by website.allowHosts) whose metadata names tarballs elsewhere.
  const routes: Record<string, (req: import("node:http").IncomingMessage, res: import("node:http").ServerResponse) => void> = {
    "/good": (_req, res) => res.writeHead(200, { "content-type": "application/json" }).end(packument("good", `${registry.url}/good/-/good-1.0.0.tgz`)),
    "/good/-/good-1.0.0.tgz": respond(kb, "application/octet-stream"),
    "/evil": (_req, res) => res.writeHead(200, { "content-type": "application/json" }).end(packument("evil", `${registry.url}/evil/-/evil-1.0.0.tgz`, evilTarball)),
    "/evil/-/evil-1.0.0.tgz": respond(evilTarball, "application/octet-stream")
  }
  forbiddenOrigins(0).forEach((_, i) => {
    routes[`/points-${i}`] = (_req, res) => res.writeHead(200, { "content-type": "application/json" }).end(packument(`points-${i}`, `${forbiddenOrigins(registry.port)[i]}/kb/-/kb-1.0.0.tgz`))
    routes[`/bounces-${i}`] = (_req, res) => res.writeHead(200, { "content-type": "application/json" }).end(packument(`bounces-${i}`, `${registry.url}/bounce/${i}.tgz`))
    routes[`/bounce/${i}.tgz`] = (req, res) => redirect(`${forbiddenOrigins(registry.port)[i]}/kb-1.0.0.tgz`)(req, res)
  })
  registry = await startServer(routes)
  // Every request to it redirects: info/refs of a git URL, to each forbidden origin by path.
  redirector = await startServer((req, res) => {
    const index = Number(/^\/to-(\d+)\//.exec(req.url ?? "")?.[1] ?? -1)
    redirect(`${forbiddenOrigins(redirector.port)[index] ?? "http://10.0.0.1"}/repo.git/info/refs?service=git-upload-pack`)(req, res)
  })
})

const evilTarball = tgz([
  { path: "package/", type: "dir" },
  { path: "package/README.md", content: "# fine\n" },
  { path: "package/../../../escape.md", content: "pwned\n" }
])

afterAll(async () => {
  await gitServer.stop()
  await registry.close()
  await redirector.close()
  fs.rmSync(root, { recursive: true, force: true })
})

describe("git over http(s) through the bundle HTTP client", () => {
  it("a repository at 127.0.0.1 is refused, naming the address class and pointing at website.allowHosts; allowed once listed", async () => {
    const before = gitServer.requests()
    const error = failed(await gitAdd("local", { url: repoUrl, allowInsecure: true }, {}))
    expect(error.reason).toBe(`${repoUrl} refused: 127.0.0.1 is a loopback address (127.0.0.0/8)`)
    expect(error.hint).toContain('add "127.0.0.1" to website.allowHosts in config.yaml')
    expect(gitServer.requests()).toBe(before) // refused before connecting
    noCache("local")

    const ok = await gitAdd("local", { url: repoUrl }, allowLoopback)
    expect(Either.isRight(ok)).toBe(true)
  })

  it.each(forbiddenOrigins(9))("a git URL at %s is refused before connecting", async (origin) => {
    const error = failed(await gitAdd("forbidden", { url: `${origin}/kb.git`, allowInsecure: true }))
    expect(error.reason).toMatch(addressClass)
    expect(error.hint).toContain("website.allowHosts")
    noCache("forbidden")
  })

  it("a redirect from an allowed server to each forbidden address is refused, naming the hop", async () => {
    for (const [index, origin] of forbiddenOrigins(redirector.port).entries()) {
      const error = failed(await gitAdd("bounced", { url: `${redirector.url}/to-${index}/repo.git`, allowInsecure: true }))
      expect(error.reason).toContain(`(redirected to ${new URL(origin).origin}`)
      expect(error.reason).toMatch(addressClass)
      noCache("bounced")
    }
  })

  it("plain http needs allowInsecure (saved as source.allowInsecure): without it refused before any lookup, with it the address policy still applies", async () => {
    const insecure = failed(await gitAdd("plain", { url: "http://93.184.216.34/kb.git" }))
    expect(insecure.reason).toContain("plain http is not allowed without --allow-insecure")
    const allowed = failed(await gitAdd("plain", { url: "http://10.0.0.1/kb.git", allowInsecure: true }))
    expect(allowed.reason).toContain("10.0.0.1 is a private address")
    noCache("plain")
  })
})

describe("npm registries and tarballs through the bundle HTTP client", () => {
  it("a registry at 127.0.0.1 is refused without website.allowHosts, naming the address; installed once listed", async () => {
    const before = registry.requests.length
    const error = failed(await npm("good", "good", {}))
    expect(error.reason).toContain("127.0.0.1 is a loopback address")
    expect(error.hint).toContain('add "127.0.0.1" to website.allowHosts in config.yaml')
    expect(registry.requests.length).toBe(before)
    noCache("good")
    const ok = await npm("good", "good")
    expect(Either.isRight(ok) && ok.right.revision).toBe("1.0.0")
  })

  it.each(forbiddenOrigins(0).map((_, i) => i))("an allowed registry whose metadata points the tarball at forbidden target #%i is refused", async (index) => {
    const target = forbiddenOrigins(registry.port)[index]!
    const error = failed(await npm(`points-${index}`, `points-${index}`))
    expect(error.reason).toContain(`the tarball of points-${index}@1.0.0: ${new URL(`${target}/kb/-/kb-1.0.0.tgz`).href} refused: `)
    expect(error.reason).toMatch(addressClass)
    expect(error.hint).toContain("website.allowHosts")
    noCache(`points-${index}`)
  })

  it("a tarball URL on the allowed registry that redirects to each forbidden address is refused", async () => {
    for (const index of forbiddenOrigins(0).keys()) {
      const error = failed(await npm(`bounces-${index}`, `bounces-${index}`))
      expect(error.reason).toMatch(addressClass)
      noCache(`bounces-${index}`)
    }
  })

  it("a refused archive leaves no empty cache folder behind", async () => {
    const error = failed(await npm("evil", "evil"))
    expect(error.reason).toContain("..")
    noCache("evil")
  })
})

describe("websites through the bundle HTTP client", () => {
  it("a start page that fails leaves no empty cache folder behind", async () => {
    const error = failed(await website("site", `${registry.url}/no-such-page`))
    expect(error.reason).toContain("404")
    noCache("site")
    failed(await website("site2", `${registry.url}/`, {}))
    noCache("site2")
  })
})
