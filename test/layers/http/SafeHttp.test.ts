import { Effect, Either } from "effect"
import { afterAll, beforeAll, describe, expect, it } from "vitest"
import { checkAddress } from "../../../src/layers/http/AddressPolicy.js"
import {
  defaultFetchPolicy,
  type FetchFailed,
  type FetchRefused,
  formatBytes,
  makeSafeFetch,
  makeSafeFetchWith,
  type ResolvedAddress,
  type SafeFetch,
  type SafeFetchPolicy,
  type SafeResponse
} from "../../../src/layers/http/SafeHttp.js"
import { forbiddenOrigins } from "./ssrfTargets.js"
import { html, redirect, respond, stall, startServer, type TestServer } from "../../support/httpTestServer.js"

/** Runs a fetch, giving back the response or the typed failure. */
const attempt = (client: SafeFetch, url: string, headers?: Record<string, string>) =>
  Effect.runPromise(Effect.either(client.fetch(url, headers === undefined ? undefined : { headers })))

const ok = async (client: SafeFetch, url: string, headers?: Record<string, string>): Promise<SafeResponse> => {
  const result = await attempt(client, url, headers)
  if (Either.isLeft(result)) throw new Error(`expected success, got ${result.left.message}`)
  return result.right
}

const failure = async (client: SafeFetch, url: string, headers?: Record<string, string>): Promise<FetchRefused | FetchFailed> => {
  const result = await attempt(client, url, headers)
  if (Either.isRight(result)) throw new Error(`expected a failure, got status ${result.right.status} from ${result.right.finalUrl}`)
  return result.left
}

const refused = async (client: SafeFetch, url: string, rule: string): Promise<FetchRefused> => {
  const error = await failure(client, url)
  expect(error._tag).toBe("FetchRefused")
  expect((error as FetchRefused).rule).toBe(rule)
  expect(error.message).not.toContain("R-WEB")
  return error as FetchRefused
}

const failed = async (client: SafeFetch, url: string): Promise<FetchFailed> => {
  const error = await failure(client, url)
  expect(error._tag, error.message).toBe("FetchFailed")
  return error as FetchFailed
}

const text = (response: SafeResponse) => Buffer.from(response.body).toString("utf8")

const clients: Array<SafeFetch> = []
const client = (policy: Partial<SafeFetchPolicy>, resolve?: (host: string) => Promise<ReadonlyArray<ResolvedAddress>>, check?: typeof checkAddress) => {
  const made = makeSafeFetchWith({ ...defaultFetchPolicy, ...policy }, { resolve, checkAddress: check })
  clients.push(made)
  return made
}

const v4 = (address: string): ResolvedAddress => ({ address, family: 4 })
const v6 = (address: string): ResolvedAddress => ({ address, family: 6 })

let site: TestServer
let other: TestServer
const big = Buffer.alloc(10 * 1024 * 1024, 0x61)

beforeAll(async () => {
  other = await startServer({
    "/landing": (req, res) => {
      res.writeHead(200, { "content-type": "application/json" }).end(JSON.stringify(req.headers))
    }
  })
  site = await startServer({
    "/": html("<h1>hello</h1>"),
    "/headers": respond("h", "text/plain", 200, { "X-Custom-Header": "Value", "set-cookie": "a=1" }),
    "/echo": (req, res) => {
      res.writeHead(200, { "content-type": "application/json" }).end(JSON.stringify(req.headers))
    },
    "/missing": html("gone", 404),
    "/broken": html("oops", 500),
    "/big": respond(big, "text/html"),
    "/big-chunked": (_req, res) => {
      res.writeHead(200, { "content-type": "text/html" })
      const chunk = Buffer.alloc(64 * 1024, 0x62)
      let sent = 0
      const pump = () => {
        while (sent < big.byteLength) {
          sent += chunk.byteLength
          if (!res.write(chunk)) {
            res.once("drain", pump)
            return
          }
        }
        res.end()
      }
      res.on("close", () => {
        sent = big.byteLength
      })
      pump()
    },
    "/exactly-cap": respond(Buffer.alloc(1000, 0x63), "text/plain"),
    "/stall-body": stall,
    "/stall-headers": () => {
      // never answers
    },
    "/loop-a": redirect("/loop-b"),
    "/loop-b": redirect("/loop-a"),
    "/self": redirect("/self"),
    "/redirect-with-body": (_req, res) => {
      res.writeHead(302, { location: "/", "content-type": "text/html" }).end(big)
    },
    "/bad-location": (_req, res) => {
      res.writeHead(302, { location: "http://[::1" }).end()
    },
    "/no-location": (_req, res) => {
      res.writeHead(302).end("no location")
    },
    "/to": (req, res) => {
      const target = new URL(req.url ?? "/", "http://x").searchParams.get("u") ?? "/"
      res.writeHead(302, { location: target }).end()
    },
    "*": (req, res) => {
      // /chain/N redirects to /chain/N-1 until 0.
      const match = /^\/chain\/(\d+)$/.exec(req.url ?? "")
      if (match === null) {
        res.writeHead(404).end()
        return
      }
      const n = Number(match[1])
      if (n === 0) res.writeHead(200, { "content-type": "text/plain" }).end("end of chain")
      else res.writeHead(301, { location: `/chain/${n - 1}` }).end()
    }
  })
})

afterAll(async () => {
  await Promise.all(clients.map((c) => Effect.runPromise(c.close)))
  await site?.close()
  await other?.close()
})

const to = (target: string) => `${site.url}/to?u=${encodeURIComponent(target)}`

describe("SafeFetch R-WEB-1: scheme and credentials", () => {
  it.each(["ftp://example.com/", "file:///etc/passwd", "data:text/plain,hi", "javascript:alert(1)", "gopher://example.com/"])(
    "refuses the scheme of %s",
    async (url) => {
      const error = await refused(client({ allowInsecure: true }), url, "R-WEB-1")
      expect(error.reason).toMatch(/scheme .* not allowed/)
    }
  )

  it.each(["https://user:secret@example.com/", "https://user@example.com/", "https://:secret@example.com/"])(
    "refuses credentials in %s",
    async (url) => {
      const error = await refused(client({}), url, "R-WEB-1")
      expect(error.reason).toMatch(/username or password/)
    }
  )

  it("refuses plain http without allowInsecure for a host outside allowHosts", async () => {
    const resolve = async () => [v4("93.184.216.34")]
    const error = await refused(client({}, resolve), "http://example.com/", "R-WEB-1")
    expect(error.reason).toMatch(/plain http .*--allow-insecure/)
  })

  it("refuses a string that is no URL", async () => {
    await refused(client({}), "not a url", "R-WEB-1")
  })
})

describe("SafeFetch R-WEB-2: addresses", () => {
  it("refuses the local test server by default, before any request reaches it", async () => {
    const before = site.requests.length
    // The default policy stops at plain http (R-WEB-1) ...
    await refused(makeSafeFetch(defaultFetchPolicy), `${site.url}/`, "R-WEB-1")
    // ... and with http allowed the address itself is refused (R-WEB-2).
    const error = await refused(client({ allowInsecure: true }), `${site.url}/`, "R-WEB-2")
    expect(error.reason).toMatch(/127\.0\.0\.1 is a loopback address/)
    expect(site.requests.length).toBe(before)
  })

  it("fetches the local test server with the test-only allowHosts allowance (plain http included)", async () => {
    const response = await ok(client({ allowHosts: ["127.0.0.1"] }), `${site.url}/`)
    expect(response.status).toBe(200)
    expect(text(response)).toBe("<h1>hello</h1>")
    expect(response.url).toBe(`${site.url}/`)
    expect(response.finalUrl).toBe(`${site.url}/`)
    expect(response.redirects).toEqual([])
    expect(response.headers["content-type"]).toBe("text/html; charset=utf-8")
  })

  it.each([
    "http://0.0.0.0/",
    "http://10.0.0.1/",
    "http://172.16.0.1/",
    "http://192.168.1.1/",
    "http://169.254.169.254/latest/meta-data/",
    "http://100.64.0.1/",
    "http://192.0.2.1/",
    "http://198.18.0.1/",
    "http://240.0.0.1/",
    "http://255.255.255.255/",
    "http://[::1]/",
    "http://[fe80::1]/",
    "http://[fc00::1]/",
    "http://[fec0::1]/",
    "http://[::ffff:127.0.0.1]/",
    "http://[64:ff9b::a9fe:a9fe]/",
    "http://[2002:a9fe:a9fe::]/",
    "http://0x7f.1/",
    "http://2130706433/",
    "http://017700000001/"
  ])("refuses the address literal %s without connecting", async (url) => {
    await refused(client({ allowInsecure: true }), url, "R-WEB-2")
  })

  it("refuses a host when any one of its answers is forbidden", async () => {
    const answers: Record<string, ReadonlyArray<ResolvedAddress>> = {
      "mixed.test": [v4("8.8.8.8"), v4("10.0.0.1")],
      "mixed6.test": [v6("2606:4700::1"), v6("fd00::1")],
      "metadata.test": [v4("1.1.1.1"), v6("::ffff:169.254.169.254")]
    }
    const c = client({}, async (host) => answers[host] ?? [])
    expect((await refused(c, "https://mixed.test/", "R-WEB-2")).reason).toBe("mixed.test resolves to a refused address: 10.0.0.1 is a private address (10.0.0.0/8)")
    expect((await refused(c, "https://mixed6.test/", "R-WEB-2")).reason).toMatch(/fd00::1 is a unique local/)
    expect((await refused(c, "https://metadata.test/", "R-WEB-2")).reason).toMatch(/169\.254\.169\.254/)
  })

  it("fails closed when the host does not resolve", async () => {
    const notFound = Object.assign(new Error("getaddrinfo ENOTFOUND nowhere.test"), { code: "ENOTFOUND" })
    const c = client({}, () => Promise.reject(notFound))
    expect((await refused(c, "https://nowhere.test/", "R-WEB-2")).reason).toMatch(/could not resolve nowhere\.test \(ENOTFOUND\)/)
    const empty = client({}, async () => [])
    expect((await refused(empty, "https://empty.test/", "R-WEB-2")).reason).toMatch(/no address/)
  })

  it("connects to the address that was checked, not to a later DNS answer", async () => {
    // The test's checker treats 127.0.0.1 as public; a rebinding resolver answers 127.0.0.2 from its second call on.
    let calls = 0
    const resolve = async () => (++calls === 1 ? [v4("127.0.0.1")] : [v4("127.0.0.2")])
    const onlyOne = (ip: string) => (ip === "127.0.0.1" ? { allowed: true as const } : { allowed: false as const, reason: `${ip} is not the checked one` })
    const c = client({ allowInsecure: true }, resolve, onlyOne)
    const before = site.requests.length
    // rebind.test exists in no DNS: success proves the socket used the pinned, checked answer.
    const response = await ok(c, `http://rebind.test:${site.port}/echo`)
    expect(calls).toBe(1)
    expect(JSON.parse(text(response)).host).toBe(`rebind.test:${site.port}`)
    expect(site.requests.length).toBe(before + 1)
    // The next request resolves again and meets the rebound answer: refused, nothing sent.
    expect((await refused(c, `http://rebind.test:${site.port}/echo`, "R-WEB-2")).reason).toMatch(/127\.0\.0\.2/)
    expect(site.requests.length).toBe(before + 1)
  })

  it("allowHosts exempts only the named host", async () => {
    const c = client({ allowHosts: ["LOCALHOST"] }, async () => [v4("127.0.0.1")])
    expect((await ok(c, `http://localhost:${site.port}/`)).status).toBe(200)
    await refused(c, `http://127.0.0.1:${site.port}/`, "R-WEB-1")
    await refused(client({ allowHosts: ["localhost"], allowInsecure: true }, async () => [v4("127.0.0.1")]), `http://127.0.0.1:${site.port}/`, "R-WEB-2")
  })
})

describe("SafeFetch R-WEB-3: redirects", () => {
  // The one SSRF matrix (spec 10 §3), shared with the git, npm and registry tests.
  const forbiddenTargets = (port: number) => forbiddenOrigins(port).map((origin) => `${origin}/`)

  it("re-checks every hop: a redirect from the allowed server to each forbidden address is refused", async () => {
    const c = client({ allowHosts: ["127.0.0.1"], allowInsecure: true })
    for (const target of forbiddenTargets(site.port)) {
      const error = await refused(c, to(target), "R-WEB-2")
      expect(error.url).toBe(new URL(target).href)
    }
  })

  it("refuses a redirect to a name resolving to a private address", async () => {
    const c = client({ allowHosts: ["127.0.0.1"], allowInsecure: true }, async () => [v4("93.184.216.34"), v4("192.168.0.10")])
    expect((await refused(c, to("http://intranet.test/"), "R-WEB-2")).reason).toMatch(/192\.168\.0\.10/)
  })

  it("refuses a redirect to plain http (outside allowHosts) without allowInsecure", async () => {
    const c = client({ allowHosts: ["127.0.0.1"] }, async () => [v4("93.184.216.34")])
    const error = await refused(c, to("http://example.com/"), "R-WEB-1")
    expect(error.url).toBe("http://example.com/")
  })

  it("refuses a redirect to another scheme or to a URL with credentials", async () => {
    const c = client({ allowHosts: ["127.0.0.1"] })
    await refused(c, to("file:///etc/passwd"), "R-WEB-1")
    await refused(c, to(`http://user:pw@127.0.0.1:${site.port}/`), "R-WEB-1")
  })

  it("follows up to maxRedirects hops and records them", async () => {
    const c = client({ allowHosts: ["127.0.0.1"] })
    const response = await ok(c, `${site.url}/chain/8`)
    expect(text(response)).toBe("end of chain")
    expect(response.redirects).toHaveLength(8)
    expect(response.redirects[0]).toBe(`${site.url}/chain/7`)
    expect(response.finalUrl).toBe(`${site.url}/chain/0`)
    expect(response.url).toBe(`${site.url}/chain/8`)
  })

  it("fails on the 9th hop", async () => {
    const error = await failed(client({ allowHosts: ["127.0.0.1"] }), `${site.url}/chain/9`)
    expect(error.reason).toMatch(/too many redirects/)
    const short = await failed(client({ allowHosts: ["127.0.0.1"], maxRedirects: 2 }), `${site.url}/chain/3`)
    expect(short.reason).toMatch(/too many redirects \(more than 2\)/)
  })

  it("catches a redirect loop", async () => {
    const c = client({ allowHosts: ["127.0.0.1"] })
    expect((await failed(c, `${site.url}/loop-a`)).reason).toMatch(/redirect loop/)
    expect((await failed(c, `${site.url}/self`)).reason).toMatch(/redirect loop/)
  })

  it("skips a redirect's own body, however large", async () => {
    const response = await ok(client({ allowHosts: ["127.0.0.1"] }), `${site.url}/redirect-with-body`)
    expect(text(response)).toBe("<h1>hello</h1>")
  })

  it("fails on a Location that is no URL", async () => {
    expect((await failed(client({ allowHosts: ["127.0.0.1"] }), `${site.url}/bad-location`)).reason).toMatch(/invalid location/)
  })

  it("returns a 3xx without Location as the answer", async () => {
    const response = await ok(client({ allowHosts: ["127.0.0.1"] }), `${site.url}/no-location`)
    expect(response.status).toBe(302)
  })

  it("drops Authorization and Cookie on a cross-origin hop, keeps them on a same-origin one", async () => {
    const c = client({ allowHosts: ["127.0.0.1", "localhost"] }, async () => [v4("127.0.0.1")])
    const secrets = { Authorization: "Bearer s3cret", Cookie: "session=abc", "X-Other": "kept" }

    const cross = await ok(c, to(`http://localhost:${other.port}/landing`), secrets)
    expect(cross.finalUrl).toBe(`http://localhost:${other.port}/landing`)
    const seen = JSON.parse(text(cross))
    expect(seen.authorization).toBeUndefined()
    expect(seen.cookie).toBeUndefined()
    expect(seen["x-other"]).toBe("kept")
    // The first hop, same origin as the request, still carried them.
    const first = site.requests.filter((r) => r.path.startsWith("/to?")).at(-1)
    expect(first?.headers.authorization).toBe("Bearer s3cret")

    const same = JSON.parse(text(await ok(c, to("/echo"), secrets)))
    expect(same.authorization).toBe("Bearer s3cret")
    expect(same.cookie).toBe("session=abc")
  })
})

describe("SafeFetch R-WEB-4: caps", () => {
  it("fails a 10 MB page announced by Content-Length", async () => {
    const error = await failed(client({ allowHosts: ["127.0.0.1"] }), `${site.url}/big`)
    expect(error.reason).toBe("page larger than 5 MiB")
  })

  it("fails a 10 MB page streamed without Content-Length, stopping early", async () => {
    const started = Date.now()
    const error = await failed(client({ allowHosts: ["127.0.0.1"] }), `${site.url}/big-chunked`)
    expect(error.reason).toBe("page larger than 5 MiB")
    expect(Date.now() - started).toBeLessThan(10_000)
  })

  it("keeps a body of exactly maxBytes and fails one byte less", async () => {
    expect((await ok(client({ allowHosts: ["127.0.0.1"], maxBytes: 1000 }), `${site.url}/exactly-cap`)).body.byteLength).toBe(1000)
    expect((await failed(client({ allowHosts: ["127.0.0.1"], maxBytes: 999 }), `${site.url}/exactly-cap`)).reason).toBe(
      "page larger than 999 bytes"
    )
  })

  it.each(["/stall-body", "/stall-headers"])("times out a stalling server (%s)", async (path) => {
    const started = Date.now()
    const error = await failed(client({ allowHosts: ["127.0.0.1"], timeoutMs: 300 }), `${site.url}${path}`)
    expect(error.reason).toBe("timed out after 0.3 s")
    expect(Date.now() - started).toBeLessThan(3_000)
  })

  it("times out a resolver that never answers", async () => {
    const c = client({ timeoutMs: 300 }, () => new Promise(() => undefined))
    expect((await failed(c, "https://hanging-dns.test/")).reason).toBe("timed out after 0.3 s")
  })

  it("formats the caps as a user reads them", () => {
    expect(formatBytes(5 * 1024 * 1024)).toBe("5 MiB")
    expect(formatBytes(512 * 1024)).toBe("512 KiB")
    expect(formatBytes(1000)).toBe("1000 bytes")
  })
})

describe("SafeFetch responses", () => {
  it("gives lower-case header names and sends the policy's user agent", async () => {
    const c = client({ allowHosts: ["127.0.0.1"], userAgent: "akm-test/1.0" })
    const response = await ok(c, `${site.url}/headers`)
    expect(response.headers["x-custom-header"]).toBe("Value")
    expect(response.headers["set-cookie"]).toBe("a=1")
    expect(Object.keys(response.headers).every((name) => name === name.toLowerCase())).toBe(true)
    const echoed = JSON.parse(text(await ok(c, `${site.url}/echo`)))
    expect(echoed["user-agent"]).toBe("akm-test/1.0")
    expect(echoed["accept-encoding"]).toBe("identity")
  })

  it("does not send the fragment", async () => {
    const response = await ok(client({ allowHosts: ["127.0.0.1"] }), `${site.url}/#top`)
    expect(response.finalUrl).toBe(`${site.url}/`)
    expect(site.requests.at(-1)?.path).toBe("/")
  })

  it("returns 4xx and 5xx answers as responses for the caller to judge", async () => {
    const c = client({ allowHosts: ["127.0.0.1"] })
    expect((await ok(c, `${site.url}/missing`)).status).toBe(404)
    expect((await ok(c, `${site.url}/broken`)).status).toBe(500)
  })

  it("reports a refused connection as FetchFailed", async () => {
    const closed = await startServer({})
    const url = `${closed.url}/`
    await closed.close()
    const error = await failed(client({ allowHosts: ["127.0.0.1"] }), url)
    expect(error.reason).toMatch(/network error/)
  })

  it("stops the request when the effect is interrupted", async () => {
    const c = client({ allowHosts: ["127.0.0.1"] })
    const started = Date.now()
    const result = await Effect.runPromise(c.fetch(`${site.url}/stall-headers`).pipe(Effect.timeoutOption("200 millis")))
    expect(result._tag).toBe("None")
    expect(Date.now() - started).toBeLessThan(3_000)
  })
})
