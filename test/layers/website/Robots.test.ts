import { Effect } from "effect"
import { afterAll, describe, expect, it } from "vitest"
import { makeRobots, productToken } from "../../../src/layers/materializers/website/Robots.js"
import { defaultFetchPolicy, makeSafeFetch, type SafeFetch } from "../../../src/layers/http/SafeHttp.js"
import { type Handler, html, redirect, respond, startServer, text, type TestServer } from "../../support/httpTestServer.js"

const servers: Array<TestServer> = []
const fetchers: Array<SafeFetch> = []

afterAll(async () => {
  await Promise.all(fetchers.map((f) => Effect.runPromise(f.close)))
  await Promise.all(servers.map((s) => s.close()))
})

const safeFetch = (allowHosts: ReadonlyArray<string> = ["127.0.0.1"]) => {
  const made = makeSafeFetch({ ...defaultFetchPolicy, allowHosts })
  fetchers.push(made)
  return made
}

/** A site whose /robots.txt answers with `robots`; every other page is a 200. */
const site = async (robots: Handler, extra: Record<string, Handler> = {}) => {
  const server = await startServer({ "/robots.txt": robots, ...extra, "*": html("page") })
  servers.push(server)
  return server
}

const allowed = (robots: ReturnType<typeof makeRobots>, url: string) => Effect.runPromise(robots.allowed(url))
const robotsFetches = (server: TestServer) => server.requests.filter((r) => r.path === "/robots.txt").length

const rules = [
  "User-agent: *",
  "Disallow: /private",
  "",
  "User-agent: akm-crawler",
  "Disallow: /no-akm",
  "Allow: /no-akm/but-this",
  "Crawl-delay: 2",
  ""
].join("\n")

describe("Robots (R-WEB-5)", () => {
  it("honours Disallow for our product token", async () => {
    const server = await site(text(rules))
    const robots = makeRobots(safeFetch(), defaultFetchPolicy.userAgent)
    expect(await allowed(robots, `${server.url}/no-akm/page`)).toBe(false)
    expect(await allowed(robots, `${server.url}/no-akm/but-this`)).toBe(true)
    expect(await allowed(robots, `${server.url}/docs/intro`)).toBe(true)
    // Our own group replaces the * group.
    expect(await allowed(robots, `${server.url}/private`)).toBe(true)
    expect(await Effect.runPromise(robots.crawlDelay(`${server.url}/`))).toBe(2)

    const other = makeRobots(safeFetch(), "other-bot/2.0")
    expect(await allowed(other, `${server.url}/private/x`)).toBe(false)
    expect(await allowed(other, `${server.url}/no-akm/page`)).toBe(true)
    expect(await Effect.runPromise(other.crawlDelay(`${server.url}/`))).toBeUndefined()
  })

  it("fetches robots.txt once per origin, concurrent callers included", async () => {
    const server = await site(text(rules))
    const robots = makeRobots(safeFetch(), defaultFetchPolicy.userAgent)
    const urls = ["/a", "/b", "/no-akm/x", "/c", "/d"].map((p) => `${server.url}${p}`)
    const verdicts = await Effect.runPromise(Effect.forEach(urls, robots.allowed, { concurrency: "unbounded" }))
    expect(verdicts).toEqual([true, true, false, true, true])
    await allowed(robots, `${server.url}/e`)
    expect(robotsFetches(server)).toBe(1)
    // The same host on another port is another origin.
    const second = await site(text("User-agent: *\nDisallow: /\n"))
    expect(await allowed(robots, `${second.url}/a`)).toBe(false)
    expect(robotsFetches(second)).toBe(1)
    expect(robotsFetches(server)).toBe(1)
  })

  it("allows everything when robots.txt is missing (404) or forbidden (403)", async () => {
    for (const status of [404, 403, 410]) {
      const server = await site(text("nope", status))
      const robots = makeRobots(safeFetch(), defaultFetchPolicy.userAgent)
      expect(await allowed(robots, `${server.url}/anything`)).toBe(true)
    }
  })

  it("disallows everything on a server error or 429", async () => {
    for (const status of [500, 503, 429]) {
      const server = await site(text("User-agent: *\nAllow: /\n", status))
      const robots = makeRobots(safeFetch(), defaultFetchPolicy.userAgent)
      expect(await allowed(robots, `${server.url}/anything`)).toBe(false)
    }
  })

  it("disallows everything when robots.txt cannot be fetched or is refused", async () => {
    const closed = await startServer({})
    const url = closed.url
    await closed.close()
    expect(await allowed(makeRobots(safeFetch(), "akm-crawler"), `${url}/page`)).toBe(false)

    const server = await site(text("User-agent: *\nAllow: /\n"))
    // Without the allowance the safe client refuses 127.0.0.1: no robots, no crawl.
    expect(await allowed(makeRobots(safeFetch([]), "akm-crawler"), `${server.url}/page`)).toBe(false)
    expect(robotsFetches(server)).toBe(0)
  })

  it("follows a redirected robots.txt", async () => {
    const server = await site(redirect("/real-robots.txt"), { "/real-robots.txt": text("User-agent: *\nDisallow: /hidden\n") })
    const robots = makeRobots(safeFetch(), "akm-crawler")
    expect(await allowed(robots, `${server.url}/hidden/page`)).toBe(false)
    expect(await allowed(robots, `${server.url}/shown`)).toBe(true)
  })

  it("reads only the first 512 KiB of a 1 MB robots.txt", async () => {
    const line = "# padding line to push the next rules past the cap\n"
    const padding = line.repeat(Math.ceil((1024 * 1024) / line.length))
    const body = `User-agent: *\nDisallow: /early\n${padding}Disallow: /late\n`
    expect(Buffer.byteLength(body)).toBeGreaterThan(1024 * 1024)
    const server = await site(respond(body, "text/plain"))
    const robots = makeRobots(safeFetch(), "akm-crawler")
    expect(await allowed(robots, `${server.url}/early/x`)).toBe(false)
    expect(await allowed(robots, `${server.url}/late/x`)).toBe(true)
  })

  it("does not allow a URL it cannot parse", async () => {
    const robots = makeRobots(safeFetch(), "akm-crawler")
    expect(await allowed(robots, "not a url")).toBe(false)
  })

  it("uses the product token of the user agent", () => {
    expect(productToken("akm-crawler (+https://github.com/akm)")).toBe("akm-crawler")
    expect(productToken("Other-Bot/2.0 (compatible)")).toBe("Other-Bot")
  })
})
