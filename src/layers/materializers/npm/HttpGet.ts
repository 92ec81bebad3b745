import { FetchFailed, FetchRefused, type SafeFetch } from "../../http/SafeHttp.js"
import { NpmProblem } from "./NpmProblem.js"

/**
 * One bounded GET for the npm materializer, through the bundle HTTP client
 * (src/layers/http): the address policy for the registry and for every
 * tarball URL its metadata chooses, redirects re-checked, a deadline, and a
 * byte cap enforced while reading (a Content-Length is not trusted).
 */

export interface GetOptions {
  readonly accept: string
  readonly maxBytes: number
  readonly timeoutMs: number
  /** What is being fetched, for messages ("the packument of x", "the tarball of x@1.0.0"). */
  readonly what: string
  readonly onBytes?: ((received: number, total: number | undefined) => void) | undefined
  /** Aborts the request when the caller is interrupted. */
  readonly signal?: AbortSignal | undefined
}

export interface GetResult {
  readonly status: number
  readonly body: Buffer
}

const REGISTRY_HINT = "check the registry URL (config npm.registry) and your network, then retry"

/** Refuses what cannot or should not be fetched: other schemes, credentials in the URL. */
export const checkHttpUrl = (url: string, what: string): URL => {
  let parsed: URL
  try {
    parsed = new URL(url)
  } catch {
    throw new NpmProblem({ reason: `${what}: '${url}' is not a URL`, hint: "check the registry URL (config npm.registry or the source's registry)" })
  }
  if (parsed.protocol !== "https:" && parsed.protocol !== "http:") {
    throw new NpmProblem({ reason: `${what}: only http(s) URLs are fetched, not ${parsed.protocol}//`, hint: "use an https:// registry" })
  }
  if (parsed.username !== "" || parsed.password !== "") {
    throw new NpmProblem({ reason: `${what}: credentials in URLs are refused`, hint: "remove user:password@ from the registry URL" })
  }
  return parsed
}

/** The bundle HTTP client's failures in the npm materializer's words. */
const asNpmProblem = (error: unknown, url: string, options: GetOptions): NpmProblem => {
  if (error instanceof NpmProblem) return error
  if (error instanceof FetchRefused) {
    const hop = error.url === url ? "" : ` (redirected to ${error.url})`
    return new NpmProblem({ reason: `${options.what}: ${url} refused${hop}: ${error.reason}`, hint: error.hint })
  }
  if (error instanceof FetchFailed) {
    if (error.tooLarge === true) {
      return new NpmProblem({
        reason: `${options.what} is larger than the ${Math.round(options.maxBytes / 1024 / 1024)} MiB cap`,
        hint: "akm refuses oversized downloads; a knowledge bundle should be far smaller"
      })
    }
    if (error.timedOut === true) return new NpmProblem({ reason: `GET ${url} timed out after ${Math.round(options.timeoutMs / 1000)} s`, hint: REGISTRY_HINT })
    const detail = error.reason.replace(/^network error \((\w+)\)$/, "$1").replace(/^network error: /, "")
    return new NpmProblem({ reason: `registry unreachable: GET ${url} failed (${detail})`, hint: REGISTRY_HINT })
  }
  return new NpmProblem({ reason: `registry unreachable: GET ${url} failed (${String((error as Error)?.message ?? error)})`, hint: REGISTRY_HINT })
}

export const httpGet = async (client: SafeFetch, url: string, options: GetOptions): Promise<GetResult> => {
  checkHttpUrl(url, options.what)
  try {
    const response = await client.open(url, { headers: { accept: options.accept }, maxBytes: options.maxBytes, timeoutMs: options.timeoutMs, what: options.what }, options.signal)
    if (response.status < 200 || response.status >= 300) {
      response.cancel()
      return { status: response.status, body: Buffer.alloc(0) }
    }
    const declared = Number(response.headers["content-length"] ?? Number.NaN)
    const total = Number.isFinite(declared) ? declared : undefined
    const chunks: Array<Uint8Array> = []
    let received = 0
    for await (const chunk of response.body) {
      received += chunk.byteLength
      chunks.push(chunk)
      options.onBytes?.(received, total)
    }
    return { status: response.status, body: Buffer.concat(chunks) }
  } catch (error) {
    throw asNpmProblem(error, url, options)
  }
}
