import { NpmProblem } from "./NpmProblem.js"

/**
 * One bounded GET for the npm materializer: Node's global fetch, a deadline,
 * and a byte cap enforced while reading (a Content-Length is not trusted).
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

const describe = (error: unknown): string => {
  const cause = (error as { cause?: { code?: string; message?: string } }).cause
  return cause?.code ?? cause?.message ?? (error as Error).message ?? String(error)
}

/** Refuses what fetch cannot or should not be handed: other schemes, credentials in the URL. */
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

export const httpGet = async (url: string, options: GetOptions): Promise<GetResult> => {
  checkHttpUrl(url, options.what)
  const deadline = AbortSignal.timeout(options.timeoutMs)
  const signal = options.signal === undefined ? deadline : AbortSignal.any([deadline, options.signal])
  let response: Response
  try {
    response = await fetch(url, { headers: { accept: options.accept, "user-agent": "akm (npm materializer)" }, redirect: "follow", signal })
  } catch (error) {
    const timedOut = deadline.aborted
    throw new NpmProblem({
      reason: timedOut ? `GET ${url} timed out after ${Math.round(options.timeoutMs / 1000)} s` : `registry unreachable: GET ${url} failed (${describe(error)})`,
      hint: "check the registry URL (config npm.registry) and your network, then retry"
    })
  }
  if (response.status < 200 || response.status >= 300) {
    await response.body?.cancel().catch(() => undefined)
    return { status: response.status, body: Buffer.alloc(0) }
  }
  const declared = Number(response.headers.get("content-length") ?? Number.NaN)
  const total = Number.isFinite(declared) ? declared : undefined
  const tooBig = () =>
    new NpmProblem({
      reason: `${options.what} is larger than the ${Math.round(options.maxBytes / 1024 / 1024)} MiB cap`,
      hint: "akm refuses oversized downloads; a knowledge bundle should be far smaller"
    })
  if (total !== undefined && total > options.maxBytes) {
    await response.body?.cancel().catch(() => undefined)
    throw tooBig()
  }
  const chunks: Array<Uint8Array> = []
  let received = 0
  try {
    if (response.body !== null) {
      const reader = response.body.getReader()
      for (;;) {
        const { done, value } = await reader.read()
        if (done) break
        received += value.byteLength
        if (received > options.maxBytes) {
          await reader.cancel().catch(() => undefined)
          throw tooBig()
        }
        chunks.push(value)
        options.onBytes?.(received, total)
      }
    }
  } catch (error) {
    if (error instanceof NpmProblem) throw error
    throw new NpmProblem({
      reason: deadline.aborted ? `GET ${url} timed out after ${Math.round(options.timeoutMs / 1000)} s` : `reading ${options.what} from ${url} failed (${describe(error)})`,
      hint: "retry; if it persists, check the registry"
    })
  }
  return { status: response.status, body: Buffer.concat(chunks) }
}
