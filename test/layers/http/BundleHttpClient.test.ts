import * as HttpBody from "@effect/platform/HttpBody"
import * as HttpClient from "@effect/platform/HttpClient"
import { Effect, Either, Schema } from "effect"
import { afterAll, beforeAll, describe, expect, it } from "vitest"
import { AkmConfig } from "../../../src/domain/Config.js"
import { bundleHttp, trustedHttp } from "../../../src/layers/http/BundleHttp.js"
import { makeHttpClient, TrustedHttpClientLive } from "../../../src/layers/http/BundleHttpClient.js"
import { FetchRefused } from "../../../src/layers/http/SafeHttp.js"
import { redirect, respond, startServer, type TestServer } from "../../support/httpTestServer.js"

// The bundle HTTP client as @effect/platform's HttpClient (registry search), and the trusted
// variant for operator endpoints (spec 01 §6: generator, embeddings, storage are trusted).

let server: TestServer
beforeAll(async () => {
  server = await startServer({
    "/index.json": respond(JSON.stringify({ bundles: [] }), "application/json"),
    "/meta": redirect("http://169.254.169.254/latest/meta-data/"),
    "/echo": (req, res) => {
      const chunks: Array<Buffer> = []
      req.on("data", (c: Buffer) => chunks.push(c)).on("end", () => res.writeHead(200, { "content-type": "text/plain" }).end(`${req.method} ${Buffer.concat(chunks).toString()}`))
    }
  })
})
afterAll(() => server.close())

const config = (yaml: unknown) => Schema.decodeUnknownSync(AkmConfig)(yaml)

const get = (client: HttpClient.HttpClient, url: string) =>
  Effect.runPromise(Effect.either(client.get(url).pipe(Effect.flatMap((r) => r.text), Effect.scoped)))

describe("HttpClient on the bundle HTTP client", () => {
  it("answers through the address policy when the host is in website.allowHosts", async () => {
    const safe = bundleHttp(config({ website: { allowHosts: ["127.0.0.1"] } }), { allowInsecure: true })
    const result = await get(makeHttpClient(safe), `${server.url}/index.json`)
    expect(result).toEqual(Either.right('{"bundles":[]}'))
    await Effect.runPromise(safe.close)
  })

  it("a refusal is a RequestError whose cause is the FetchRefused (naming the address class), before any request", async () => {
    const before = server.requests.length
    const safe = bundleHttp(config({}), { allowInsecure: true })
    const result = await get(makeHttpClient(safe), `${server.url}/index.json`)
    if (Either.isRight(result)) throw new Error("expected a refusal")
    expect(result.left._tag).toBe("RequestError")
    const cause = (result.left as { cause?: unknown }).cause
    expect(cause).toBeInstanceOf(FetchRefused)
    expect((cause as FetchRefused).reason).toBe("127.0.0.1 is a loopback address (127.0.0.0/8)")
    expect(server.requests.length).toBe(before)
  })

  it("a redirect to the metadata address is refused (R-WEB-3)", async () => {
    const safe = bundleHttp(config({ website: { allowHosts: ["127.0.0.1"] } }), { allowInsecure: true })
    const result = await get(makeHttpClient(safe), `${server.url}/meta`)
    expect(Either.isLeft(result) && ((result.left as { cause?: FetchRefused }).cause?.reason ?? "")).toContain("169.254.169.254 is a link-local address")
  })

  it("sends a POST body", async () => {
    const safe = bundleHttp(config({ website: { allowHosts: ["127.0.0.1"] } }))
    const client = makeHttpClient(safe)
    const result = await Effect.runPromise(client.post(`${server.url}/echo`, { body: HttpBody.text("wants") }).pipe(Effect.flatMap((r) => r.text), Effect.scoped))
    expect(result).toBe("POST wants")
  })
})

describe("the trusted client for operator endpoints", () => {
  it("reaches 127.0.0.1 over plain http without website.allowHosts (a local Ollama must work)", async () => {
    const safe = trustedHttp()
    const response = await Effect.runPromise(safe.fetch(`${server.url}/index.json`))
    expect(response.status).toBe(200)
    await Effect.runPromise(safe.close)
    const viaLayer = await Effect.runPromise(
      Effect.gen(function* () {
        const client = yield* HttpClient.HttpClient
        return yield* client.get(`${server.url}/index.json`).pipe(Effect.flatMap((r) => r.json))
      }).pipe(Effect.scoped, Effect.provide(TrustedHttpClientLive()))
    )
    expect(viaLayer).toEqual({ bundles: [] })
  })
})
