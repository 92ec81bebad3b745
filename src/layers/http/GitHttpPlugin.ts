import type { GitHttpRequest, GitHttpResponse, HttpClient } from "isomorphic-git"
import type { SafeFetch } from "./SafeHttp.js"

/**
 * isomorphic-git's `http` plugin on the bundle HTTP client: git over http(s)
 * gets the same address policy, pinning, redirect re-checks, caps and error
 * types as every other bundle fetch (spec 01 §6), instead of isomorphic-git's
 * own node transport. Requests fail with FetchRefused / FetchFailed, which
 * isomorphic-git passes through unchanged.
 */

/** An error page is small: read it whole so the request's deadline ends with it (isomorphic-git may not read it). */
const ERROR_BODY_BYTES = 64 * 1024

const collect = async (body: AsyncIterableIterator<Uint8Array>): Promise<Uint8Array> => {
  const chunks: Array<Uint8Array> = []
  for await (const chunk of body) chunks.push(chunk)
  return Buffer.concat(chunks)
}

async function* once(bytes: Uint8Array): AsyncGenerator<Uint8Array> {
  if (bytes.byteLength > 0) yield bytes
}

export const gitHttpPlugin = (client: SafeFetch): HttpClient => ({
  request: async (request: GitHttpRequest): Promise<GitHttpResponse> => {
    const method = request.method === "POST" ? "POST" : "GET"
    // An upload-pack request is a short list of wants and haves.
    const body = request.body === undefined ? undefined : await collect(request.body)
    const response = await client.open(request.url, { method, headers: request.headers ?? {}, body, what: "the git server's answer" }, request.signal)
    const ok = response.status >= 200 && response.status < 300
    return {
      url: response.finalUrl,
      method,
      statusCode: response.status,
      statusMessage: "",
      headers: { ...response.headers },
      body: ok ? response.body : once(await collect(cap(response.body)))
    }
  }
})

async function* cap(body: AsyncGenerator<Uint8Array>): AsyncGenerator<Uint8Array> {
  let total = 0
  for await (const chunk of body) {
    total += chunk.byteLength
    if (total > ERROR_BODY_BYTES) return void (await body.return(undefined))
    yield chunk
  }
}
