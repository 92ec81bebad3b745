import * as fs from "node:fs"
import * as os from "node:os"
import * as path from "node:path"
import { createHash } from "node:crypto"
import type * as http from "node:http"
import { Effect, Either } from "effect"
import { afterAll, afterEach, beforeAll, describe, expect, it } from "vitest"
import type { AkmConfig, BundleSource } from "../../../src/domain/Config.js"
import type { LockedBundle } from "../../../src/domain/Lock.js"
import { websiteSnapshotAdapter } from "../../../src/layers/adapters/website-snapshot/index.js"
import { readManifest } from "../../../src/layers/adapters/website-snapshot/manifest.js"
import { makeWebsiteMaterializer, type WebsiteLimits } from "../../../src/layers/materializers/MaterializerWebsite.js"
import type { MaterializerContext } from "../../../src/layers/materializers/SourceMaterializer.js"
import type { Materialized, MaterializeFailed, MaterializeOptions } from "../../../src/services/Materializer.js"
import { codes, scanDir } from "../../support/adapterHarness.js"
import { html, redirect, respond, stall, startServer, text, type Handler, type TestServer } from "../../support/httpTestServer.js"

// Spec 02 "website", R-WEB-4/5/6/7: the crawler against real local servers on 127.0.0.1.

const filler = "This page is part of a small test site that the akm crawler snapshots into markdown for local search. "

const page = (title: string, body: string, links: ReadonlyArray<string> = []): Handler =>
  html(`<!doctype html><html><head><title>${title}</title></head><body>
<nav>${links.map((l) => `<a href="${l}">${l}</a>`).join(" ")}</nav>
<main><h1>${title}</h1><p>${body} ${filler}</p></main>
<footer>site footer</footer></body></html>`)

let workDir: string
const servers: Array<TestServer> = []

beforeAll(() => {
  workDir = fs.mkdtempSync(path.join(os.tmpdir(), "akm-crawler-"))
})
afterAll(() => fs.rmSync(workDir, { recursive: true, force: true }))
afterEach(async () => {
  await Promise.all(servers.splice(0).map((s) => s.close()))
})

const serve = async (routes: Readonly<Record<string, Handler>> | Handler): Promise<TestServer> => {
  const server = await startServer(routes)
  servers.push(server)
  return server
}

let counter = 0
/** A fresh cache folder and a materializer over it. */
const setup = (options: { readonly allowHosts?: ReadonlyArray<string>; readonly limits?: Partial<WebsiteLimits> } = {}) => {
  const sourcesDir = path.join(workDir, `cache-${++counter}`, "sources")
  const config = { bundles: {}, website: { allowHosts: options.allowHosts ?? ["127.0.0.1"] } } as unknown as AkmConfig
  const progress: Array<number> = []
  const ctx: MaterializerContext = {
    sourcesDir,
    configDir: workDir,
    progress: (_task, done) => Effect.sync(() => void progress.push(done)),
    progressDone: () => Effect.void,
    config: Effect.succeed(config)
  }
  const materializer = makeWebsiteMaterializer(ctx, options.limits)
  const run = (url: string, extra: Partial<Extract<BundleSource, { kind: "website" }>> = {}, materializeOptions: MaterializeOptions = {}) =>
    Effect.runPromise(Effect.either(materializer.materialize("site", { kind: "website", url, ...extra }, materializeOptions)))
  return { sourcesDir, run, progress }
}

const ok = (result: Either.Either<Materialized, MaterializeFailed>): Materialized => {
  if (Either.isLeft(result)) throw new Error(`expected a snapshot, got: ${result.left.message}`)
  return result.right
}

const failed = (result: Either.Either<Materialized, MaterializeFailed>): MaterializeFailed => {
  if (Either.isRight(result)) throw new Error(`expected a failure, got a snapshot at ${result.right.root}`)
  return result.left
}

const manifestOf = (root: string) => {
  const read = readManifest(fs.readFileSync(path.join(root, "manifest.json"), "utf8"))
  expect(read.problems).toEqual([])
  return read.manifest!
}

const sha256 = (file: string) => createHash("sha256").update(fs.readFileSync(file, "utf8")).digest("hex")

/** path → sha256 of every file under root. */
const digestTree = (root: string): Record<string, string> =>
  Object.fromEntries(
    (fs.readdirSync(root, { recursive: true }) as Array<string>)
      .filter((p) => fs.statSync(path.join(root, p)).isFile())
      .sort()
      .map((p) => [p, sha256(path.join(root, p))])
  )

const asPrevious = (m: Materialized): LockedBundle => ({
  source: { kind: "website", locator: m.locator },
  revision: m.revision,
  root: m.root,
  adapter: { id: "website-snapshot", version: "1" },
  installedAt: "2026-01-01T00:00:00Z",
  updatedAt: "2026-01-01T00:00:00Z"
})

const paths = (srv: TestServer) => srv.requests.map((r) => r.path)

describe("crawl: links, limits and the snapshot", () => {
  it("follows same-origin links breadth-first and writes a manifest the website-snapshot adapter reads cleanly", async () => {
    const other = await serve({ "*": page("Elsewhere", "never fetched") })
    const site = await serve({
      "/": page("Home", "Welcome home.", ["/guide/start", "/guide/", "#top", "mailto:x@y.z", "/logo.png", `${other.url}/x`, "/guide/start#install"]),
      "/guide/start": page("Start", "How to start.", ["/", "../api?v=2"]),
      "/guide/": page("Guide", "The guide index.", ["start"]),
      "/api": respond("# API\n\nThe API in markdown.\n", "text/markdown; charset=utf-8"),
      "/robots.txt": text("User-agent: *\nAllow: /\n")
    })
    const { run, progress } = setup()
    const result = ok(await run(`${site.url}/`))
    expect(result.partial).toBeUndefined()
    expect(result.diagnostics ?? []).toEqual([])
    expect(result.revision).toMatch(/^\d{8}T\d{6}\.\d{3}Z-[0-9a-f]{8}$/)
    expect(path.basename(result.root)).toBe(result.revision)
    expect(other.requests).toEqual([])
    expect(paths(site)).not.toContain("/logo.png")
    expect(progress.at(-1)).toBe(4)

    const manifest = manifestOf(result.root)
    expect(manifest.url).toBe(`${site.url}/`)
    expect(manifest.revision).toBe(result.revision)
    expect(manifest.complete).toBe(true)
    expect(manifest.pages.map((p) => [p.path, p.url, p.title])).toEqual([
      ["index.md", `${site.url}/`, "Home"],
      ["guide/start.md", `${site.url}/guide/start`, "Start"],
      ["guide/index.md", `${site.url}/guide/`, "Guide"],
      [expect.stringMatching(/^api-q[0-9a-f]{8}\.md$/), `${site.url}/api?v=2`, "API"]
    ])
    for (const p of manifest.pages) {
      expect(p.contentHash).toBe(sha256(path.join(result.root, p.path)))
      expect(p.fetchedAt).toMatch(/^\d{4}-\d\d-\d\dT/)
    }
    expect(manifest.pages[0]!.links).toEqual([`${site.url}/guide/start`, `${site.url}/guide/`, `${site.url}/logo.png`, `${other.url}/x`])
    const home = fs.readFileSync(path.join(result.root, "index.md"), "utf8")
    expect(home.startsWith("# Home\n")).toBe(true)
    expect(home).toContain("Welcome home.")
    expect(home).not.toContain("site footer")

    const scan = scanDir(websiteSnapshotAdapter, result.root)
    expect(codes(scan.diagnostics)).toEqual([])
    expect(scan.items.map((i) => i.conceptId).sort()).toEqual(["guide/index", "guide/start", manifest.pages[3]!.path.slice(0, -3), "index"].sort())
  })

  it("stops at maxPages, keeps what it has and marks the snapshot partial", async () => {
    const links = Array.from({ length: 10 }, (_, i) => `/p${i}`)
    const site = await serve({ "/": page("Hub", "Many pages.", links), "*": page("Leaf", "A leaf page.") })
    const result = ok(await setup().run(`${site.url}/`, { maxPages: 3 }))
    expect(result.partial).toBe(true)
    const manifest = manifestOf(result.root)
    expect(manifest.complete).toBe(false)
    expect(manifest.pages.map((p) => p.path)).toEqual(["index.md", "p0.md", "p1.md"])
    expect(result.diagnostics?.map((d) => d.code)).toEqual(["snapshot-partial"])
    expect(result.diagnostics?.[0]?.message).toContain("page limit (3)")
    expect(paths(site).filter((p) => p.startsWith("/p"))).toEqual(["/p0", "/p1"])
  })

  it("stops at maxDepth and marks the snapshot partial when deeper pages exist", async () => {
    const site = await serve({
      "/": page("D0", "depth zero", ["/d1"]),
      "/d1": page("D1", "depth one", ["/d2"]),
      "/d2": page("D2", "depth two", ["/d3"]),
      "/d3": page("D3", "depth three", ["/d4"]),
      "/d4": page("D4", "depth four")
    })
    const { run } = setup({ limits: { maxDepth: 2 } })
    const result = ok(await run(`${site.url}/`))
    expect(manifestOf(result.root).pages.map((p) => p.title)).toEqual(["D0", "D1", "D2"])
    expect(result.partial).toBe(true)
    expect(result.diagnostics?.[0]?.message).toContain("depth limit (2)")
    expect(paths(site)).not.toContain("/d3")
    // Within the default depth (3) the same site minus its last page is complete.
    const complete = ok(await setup().run(`${site.url}/d1`))
    expect(manifestOf(complete.root).pages.map((p) => p.title)).toEqual(["D1", "D2", "D3", "D4"])
    expect(complete.partial).toBeUndefined()
  })

  it("stops at the crawl's time limit and keeps the pages fetched so far", async () => {
    // The limit leaves room for the start page (and the first load of the converter libraries).
    const slow: Handler = (_req, res) => void setTimeout(() => page("Slow", "late")(_req, res), 10_000).unref()
    const site = await serve({ "/": page("Hub", "hub", ["/a", "/b"]), "/a": slow, "/b": slow })
    const result = ok(await setup({ limits: { maxCrawlMs: 1500 } }).run(`${site.url}/`))
    expect(manifestOf(result.root).pages.map((p) => p.title)).toEqual(["Hub"])
    expect(result.partial).toBe(true)
    expect(result.diagnostics?.[0]?.message).toContain("time limit")
  })
})

describe("crawl: robots.txt (R-WEB-5)", () => {
  it("never fetches a disallowed page and reports it", async () => {
    const site = await serve({
      "/robots.txt": text("User-agent: *\nDisallow: /private\n"),
      "/": page("Home", "home", ["/private/secret", "/public"]),
      "/private/secret": page("Secret", "do not crawl"),
      "/public": page("Public", "fine")
    })
    const result = ok(await setup().run(`${site.url}/`))
    expect(manifestOf(result.root).pages.map((p) => p.title)).toEqual(["Home", "Public"])
    expect(paths(site)).not.toContain("/private/secret")
    expect(result.diagnostics).toEqual([{ code: "robots-disallowed", message: expect.stringContaining("robots.txt"), path: `${site.url}/private/secret` }])
    expect(paths(site).filter((p) => p === "/robots.txt")).toHaveLength(1)
  })

  it("a start page that robots.txt disallows fails the crawl, saying so", async () => {
    const site = await serve({ "/robots.txt": text("User-agent: akm-crawler\nDisallow: /\n"), "/": page("Home", "home") })
    const error = failed(await setup().run(`${site.url}/`))
    expect(error.message).toContain("robots.txt does not allow fetching the start page")
    expect(paths(site)).not.toContain("/")
  })

  it("honours Crawl-delay: one request at a time, spaced out", async () => {
    const seen: Array<number> = []
    const timed = (title: string): Handler => (req, res) => {
      seen.push(Date.now())
      page(title, title, ["/a", "/b"])(req, res)
    }
    const site = await serve({ "/robots.txt": text("User-agent: *\nCrawl-delay: 0.4\n"), "/": timed("Home"), "/a": timed("A"), "/b": timed("B") })
    const result = ok(await setup().run(`${site.url}/`))
    expect(manifestOf(result.root).pages.map((p) => p.title)).toEqual(["Home", "A", "B"])
    expect(seen[2]! - seen[1]!).toBeGreaterThanOrEqual(350)
  })

  it("robots.txt answering 5xx disallows everything: only robots.txt is fetched and the crawl fails", async () => {
    const site = await serve({ "/robots.txt": text("down", 503), "/": page("Home", "home") })
    const error = failed(await setup().run(`${site.url}/`))
    expect(error.message).toContain("robots.txt answered HTTP 503")
    expect(error.message).toContain('"disallow all"')
    expect(new Set(paths(site))).toEqual(new Set(["/robots.txt"]))
  })
})

describe("crawl: pages that fail are skipped, the crawl goes on", () => {
  it("skips a redirect loop, a 10 MB page, a stalling page, a 404, a non-page and an off-origin redirect", async () => {
    const other = await serve({ "*": page("Other", "other origin") })
    const big = "<html><body><p>" + "x".repeat(10 * 1024 * 1024) + "</p></body></html>"
    const site = await serve({
      "/": page("Home", "home", ["/loop", "/big", "/stall", "/missing", "/data.bin", "/file", "/away", "/fine"]),
      "/loop": redirect("/loop2"),
      "/loop2": redirect("/loop"),
      "/big": html(big),
      "/stall": stall,
      "/file": respond(new Uint8Array([0, 1, 2]), "application/octet-stream"),
      "/away": redirect(`${other.url}/landing`),
      "/fine": page("Fine", "still crawled")
    })
    const result = ok(await setup({ limits: { timeoutMs: 500 } }).run(`${site.url}/`))
    expect(manifestOf(result.root).pages.map((p) => p.title)).toEqual(["Home", "Fine"])
    expect(result.partial).toBeUndefined()
    const byPath = Object.fromEntries((result.diagnostics ?? []).map((d) => [d.path, d]))
    expect(byPath[`${site.url}/loop`]?.code).toBe("page-failed")
    expect(byPath[`${site.url}/loop`]?.message).toMatch(/redirect/)
    expect(byPath[`${site.url}/big`]?.code).toBe("page-too-large")
    expect(byPath[`${site.url}/stall`]?.code).toBe("page-failed")
    expect(byPath[`${site.url}/stall`]?.message).toMatch(/timed out/)
    expect(byPath[`${site.url}/missing`]?.message).toContain("HTTP 404")
    expect(byPath[`${site.url}/file`]?.code).toBe("page-skipped")
    expect(byPath[`${site.url}/away`]?.code).toBe("page-refused")
    expect(byPath[`${site.url}/data.bin`]).toBeUndefined() // a binary extension is never even requested
    expect(paths(site)).not.toContain("/data.bin")
  })

  it("a start page that fails fails the crawl and leaves no staging folder behind", async () => {
    const site = await serve({ "/": html("gone", 404) })
    const { run, sourcesDir } = setup()
    const error = failed(await run(`${site.url}/`))
    expect(error.message).toContain("HTTP 404")
    expect(fs.existsSync(path.join(sourcesDir, "site"))).toBe(false) // no staging, no empty bundle folder
  })
})

describe("crawl: the address policy (R-WEB-2)", () => {
  it("the default policy (no website.allowHosts) refuses the local server, naming the address class (never a requirement id)", async () => {
    const site = await serve({ "*": page("Home", "home") })
    const error = failed(await setup({ allowHosts: [] }).run(`${site.url}/`, { allowInsecure: true }))
    expect(error.message).toContain("127.0.0.1 is a loopback address")
    expect(error.message).not.toContain("R-WEB")
    expect(error.hint).toContain("website.allowHosts")
    expect(site.requests).toEqual([])
  })
})

describe("refresh (R-WEB-7)", () => {
  const etagSite = (state: { body: string; etag: string }): Handler => (req: http.IncomingMessage, res: http.ServerResponse) => {
    if (req.headers["if-none-match"] === state.etag) return void res.writeHead(304, { etag: state.etag }).end()
    page("Versioned", state.body)(req, res)
  }

  it("sends If-None-Match, reuses a page on 304 and writes a new revision without touching the old one", async () => {
    const state = { body: "first version", etag: '"v1"' }
    const site = await serve({
      "/": (req, res) => {
        if (req.headers["if-none-match"] === '"home"') return void res.writeHead(304, { etag: '"home"' }).end()
        res.writeHead(200, { "content-type": "text/html", etag: '"home"', "last-modified": "Tue, 28 Apr 2026 09:12:00 GMT" })
        res.end(`<html><head><title>Home</title></head><body><main><h1>Home</h1><p>home ${filler}</p><a href="/v">v</a></main></body></html>`)
      },
      "/v": (req, res) => {
        res.setHeader("etag", state.etag)
        etagSite(state)(req, res)
      }
    })
    const { run } = setup()
    const first = ok(await run(`${site.url}/`))
    const before = digestTree(first.root)
    const firstManifest = manifestOf(first.root)
    expect(firstManifest.pages[0]).toMatchObject({ etag: '"home"', lastModified: "Tue, 28 Apr 2026 09:12:00 GMT" })

    site.requests.length = 0
    const second = ok(await run(`${site.url}/`, {}, { previous: asPrevious(first) }))
    const homeRequest = site.requests.find((r) => r.path === "/")!
    expect(homeRequest.headers["if-none-match"]).toBe('"home"')
    expect(homeRequest.headers["if-modified-since"]).toBe("Tue, 28 Apr 2026 09:12:00 GMT")
    expect(second.revision).not.toBe(first.revision)
    expect(second.root).not.toBe(first.root)
    const secondManifest = manifestOf(second.root)
    // The 304 reused both pages: same text, same hashes, same links (so /v was still found).
    expect(secondManifest.pages.map((p) => [p.path, p.contentHash, p.links])).toEqual(firstManifest.pages.map((p) => [p.path, p.contentHash, p.links]))
    expect(digestTree(first.root)).toEqual(before)

    // A changed page: a new hash and a new revision; the unchanged page is still reused.
    Object.assign(state, { body: "second version", etag: '"v2"' })
    const third = ok(await run(`${site.url}/`, {}, { previous: asPrevious(second) }))
    const thirdManifest = manifestOf(third.root)
    expect(thirdManifest.pages[1]!.contentHash).not.toBe(secondManifest.pages[1]!.contentHash)
    expect(thirdManifest.pages[0]!.contentHash).toBe(secondManifest.pages[0]!.contentHash)
    expect(fs.readFileSync(path.join(third.root, thirdManifest.pages[1]!.path), "utf8")).toContain("second version")
    expect(third.revision).not.toBe(second.revision)

    // --force: no validators sent, every page fetched afresh.
    site.requests.length = 0
    ok(await run(`${site.url}/`, {}, { previous: asPrevious(third), force: true }))
    expect(site.requests.filter((r) => r.path !== "/robots.txt").every((r) => r.headers["if-none-match"] === undefined)).toBe(true)
  })

  it("a dead server on refresh fails and leaves the previous snapshot intact", async () => {
    const site = await serve({ "/": page("Home", "home") })
    const { run, sourcesDir } = setup()
    const first = ok(await run(`${site.url}/`))
    const before = digestTree(first.root)
    await site.close()
    const error = failed(await run(`${site.url}/`, {}, { previous: asPrevious(first) }))
    expect(error.message).toMatch(/network error|ECONNREFUSED/)
    expect(digestTree(first.root)).toEqual(before)
    expect(fs.readdirSync(path.join(sourcesDir, "site"))).toEqual([path.basename(first.root)])
  })
})
