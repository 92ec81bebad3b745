import * as HttpClient from "@effect/platform/HttpClient"
import * as HttpClientError from "@effect/platform/HttpClientError"
import type * as HttpClientRequest from "@effect/platform/HttpClientRequest"
import * as HttpClientResponse from "@effect/platform/HttpClientResponse"
import { Effect, Layer } from "effect"
import type { ConfigInvalid } from "../../domain/Errors.js"
import { WorkspaceConfig } from "../../services/WorkspaceConfig.js"
import { bundleHttp, trustedHttp, type BundleHttpOptions } from "./BundleHttp.js"
import type { SafeFetch } from "./SafeHttp.js"

/**
 * @effect/platform's HttpClient on the bundle HTTP client, for programs that
 * speak HttpClient (registry search). A refusal or failure of the safe client
 * is a RequestError whose `cause` is the FetchRefused / FetchFailed, so the
 * program can word it (and its hint) the one way.
 */

/** Statuses whose answer has no body (a web Response refuses one). */
const bodyless = new Set([101, 204, 205, 304])

const bodyOf = (request: HttpClientRequest.HttpClientRequest): Uint8Array | undefined => {
  switch (request.body._tag) {
    case "Empty":
      return undefined
    case "Uint8Array":
      return request.body.body
    default:
      // Streams and form data are not needed by any bundle fetch; refuse rather than send something else.
      throw new Error(`request bodies of type ${request.body._tag} are not supported`)
  }
}

export const makeHttpClient = (client: SafeFetch): HttpClient.HttpClient =>
  HttpClient.make((request, url, signal) =>
    Effect.tryPromise({
      try: async () => {
        const method = request.method === "POST" ? "POST" : request.method === "GET" ? "GET" : undefined
        if (method === undefined) throw new Error(`method ${request.method} is not supported`)
        const stream = await client.open(url.href, { method, headers: request.headers, body: bodyOf(request) }, signal)
        const chunks: Array<Uint8Array> = []
        for await (const chunk of stream.body) chunks.push(chunk)
        const body = bodyless.has(stream.status) ? null : Buffer.concat(chunks)
        return HttpClientResponse.fromWeb(request, new Response(body, { status: stream.status, headers: stream.headers }))
      },
      catch: (cause) =>
        new HttpClientError.RequestError({ request, reason: "Transport", cause, description: cause instanceof Error ? cause.message : String(cause) })
    })
  )

/**
 * HttpClient for fetches on behalf of bundles: the address policy with
 * config `website.allowHosts`. Plain http is allowed: registry search only
 * lists bundles, and every install applies its own rules.
 */
export const BundleHttpClientLive = (options: BundleHttpOptions = { allowInsecure: true }): Layer.Layer<HttpClient.HttpClient, ConfigInvalid, WorkspaceConfig> =>
  Layer.scoped(
    HttpClient.HttpClient,
    Effect.gen(function* () {
      const config = yield* (yield* WorkspaceConfig).read
      const client = yield* Effect.acquireRelease(Effect.sync(() => bundleHttp(config, options)), (c) => c.close)
      return makeHttpClient(client)
    })
  )

/** HttpClient for endpoints the operator configures (generator, embeddings, storage): trusted, no address check (spec 01 §6). */
export const TrustedHttpClientLive = (options: BundleHttpOptions = {}): Layer.Layer<HttpClient.HttpClient> =>
  Layer.scoped(
    HttpClient.HttpClient,
    Effect.acquireRelease(Effect.sync(() => trustedHttp(options)), (c) => c.close).pipe(Effect.map(makeHttpClient))
  )
