import { promises as dns } from "node:dns"
import { Data, Effect } from "effect"
import type { LookupFunction } from "node:net"
import type { Readable } from "node:stream"
import type { Agent } from "undici"
import { type AddressVerdict, checkAddress, isIpLiteral, normalizeHost } from "./AddressPolicy.js"

/**
 * The one HTTP client for everything fetched on behalf of a bundle (spec 01
 * §6, spec 02 R-WEB-1..4): website pages, git over http(s), npm registries and
 * the tarballs their metadata names, registry search. The address policy,
 * redirects, timeouts, size caps and error wording live here once. undici is
 * loaded lazily, on the first request (CLI start-up).
 */
export interface SafeFetchPolicy {
  /** Host names or IP literals exempt from the address check (config website.allowHosts). */
  readonly allowHosts: ReadonlyArray<string>
  /** Plain http permitted (--allow-insecure). */
  readonly allowInsecure: boolean
  /** Per response body, bytes (5 MiB); a request may ask for its own. */
  readonly maxBytes: number
  /** Per request, including redirects and body (15 s); a request may ask for its own. */
  readonly timeoutMs: number
  /** Redirect hops (8). */
  readonly maxRedirects: number
  readonly userAgent: string
  /** Longest silence while waiting for headers or between body chunks (a stalled server); unset: only timeoutMs. */
  readonly idleTimeoutMs?: number | undefined
  /**
   * Operator endpoints (spec 01 §6: improve.generator.baseUrl,
   * search.embeddings.baseUrl, storage.url) are trusted configuration: no
   * address check and plain http allowed (a local Ollama on 127.0.0.1).
   * Never set for anything a bundle chooses.
   */
  readonly trusted?: boolean | undefined
}

export const defaultFetchPolicy: SafeFetchPolicy = {
  allowHosts: [],
  allowInsecure: false,
  maxBytes: 5 * 1024 * 1024,
  timeoutMs: 15_000,
  maxRedirects: 8,
  userAgent: "akm-crawler (+https://github.com/akm)"
}

export interface SafeRequestInit {
  readonly method?: "GET" | "POST" | undefined
  readonly headers?: Readonly<Record<string, string>> | undefined
  readonly body?: Uint8Array | undefined
  /** Overrides policy.maxBytes for this request. */
  readonly maxBytes?: number | undefined
  /** Overrides policy.timeoutMs for this request. */
  readonly timeoutMs?: number | undefined
  /** What the body is, for the size message ("page", "the tarball of kb@1.0.0"). */
  readonly what?: string | undefined
}

interface SafeHead {
  /** The URL requested. */
  readonly url: string
  /** The URL answered after redirects. */
  readonly finalUrl: string
  readonly status: number
  /** Lower-case header names. */
  readonly headers: Readonly<Record<string, string>>
  /** Every hop followed, in order (not including the first URL). */
  readonly redirects: ReadonlyArray<string>
}

export interface SafeResponse extends SafeHead {
  readonly body: Uint8Array
}

/** An answer whose body is read as it arrives; read it to the end or `return()` it (the deadline runs until then). */
export interface SafeStream extends SafeHead {
  /** Fails with FetchFailed (cap, timeout, network). */
  readonly body: AsyncGenerator<Uint8Array>
  /** Drops a body that will not be read (an error status). */
  readonly cancel: () => void
}

/** The hint every refusal carries: what the policy protects and the one way to allow a trusted host. */
export const refusalHint = (rule: string, url: string): string => {
  if (rule === "R-WEB-1") return "use an https URL without credentials (plain http needs --allow-insecure)"
  if (rule === "R-WEB-2") {
    const host = URL.canParse(url) ? normalizeHost(new URL(url).hostname) : undefined
    return `akm never fetches loopback, private, link-local or other internal addresses for a bundle; if you trust this host, add ${host === undefined ? "it" : `"${host}"`} to website.allowHosts in config.yaml`
  }
  if (rule === "R-WEB-3") return "a redirect led somewhere akm may not go; start from the final URL instead"
  return "check the URL"
}

/** A request the safety rules refuse; `rule` names the requirement (R-WEB-1 … R-WEB-5), for code and tests only. */
export class FetchRefused extends Data.TaggedError("FetchRefused")<{
  readonly url: string
  readonly rule: string
  readonly reason: string
}> {
  override get message(): string {
    return `${this.url}: refused: ${this.reason}`
  }
  /** What to do about it, in a user's words (no requirement ids). */
  get hint(): string {
    return refusalHint(this.rule, this.url)
  }
}

/** A request that could not complete: network error, timeout, oversize body, too many redirects. */
export class FetchFailed extends Data.TaggedError("FetchFailed")<{
  readonly url: string
  readonly reason: string
  readonly tooLarge?: boolean | undefined
  readonly timedOut?: boolean | undefined
}> {
  override get message(): string {
    return `${this.url}: ${this.reason}`
  }
}

export interface SafeFetch {
  /** One request, body read whole (capped). */
  readonly fetch: (url: string, init?: SafeRequestInit) => Effect.Effect<SafeResponse, FetchRefused | FetchFailed>
  /** One request, body streamed (capped); rejects with FetchRefused or FetchFailed. For adapters over promises (isomorphic-git, npm). */
  readonly open: (url: string, init?: SafeRequestInit, signal?: AbortSignal) => Promise<SafeStream>
  /** Closes the connection pool, dropping any answer still unread (callers close when they are done). */
  readonly close: Effect.Effect<void>
}

/** One request's deadline and cap, shared by the redirect loop and its streamed body. */
interface RequestState {
  readonly maxBytes: number
  readonly timeoutMs: number
  readonly timedOut: () => boolean
  readonly finish: () => void
}

/** One resolved address, as dns.lookup({ all: true }) gives it. */
export interface ResolvedAddress {
  readonly address: string
  readonly family: number
}

/** Host name → every A/AAAA answer; rejects when the name does not resolve. */
export type Resolver = (host: string) => Promise<ReadonlyArray<ResolvedAddress>>

/** Seams for tests: a fake resolver (DNS rebinding, several answers) and address checker. */
export interface SafeFetchInternals {
  readonly resolve?: Resolver
  readonly checkAddress?: (ip: string) => AddressVerdict
}

const systemResolver: Resolver = (host) => dns.lookup(host, { all: true, verbatim: true })

/** "5 MiB", "512 KiB", "1000 bytes": the caps as a user reads them. */
export const formatBytes = (bytes: number): string =>
  bytes >= MiB && bytes % MiB === 0
    ? `${bytes / MiB} MiB`
    : bytes >= KiB && bytes % KiB === 0
      ? `${bytes / KiB} KiB`
      : `${bytes} bytes`
const KiB = 1024
const MiB = 1024 * 1024

const redirectStatuses = new Set([301, 302, 303, 307, 308])
/** Credentials never follow a hop to another origin (R-WEB-3). */
const originBoundHeaders = new Set(["authorization", "cookie", "proxy-authorization"])

/** Raised inside the connection's lookup when a host has no checked addresses (never expected: fail closed). */
class UncheckedHost extends Error {
  constructor(readonly host: string) {
    super(`no checked address for ${host}`)
  }
}

const lowerCaseKeys = (headers: Readonly<Record<string, string>>): Record<string, string> =>
  Object.fromEntries(Object.entries(headers).map(([name, value]) => [name.toLowerCase(), value]))

const flattenHeaders = (headers: Readonly<Record<string, string | ReadonlyArray<string> | undefined>>): Record<string, string> => {
  const out: Record<string, string> = {}
  for (const [name, value] of Object.entries(headers)) {
    if (value === undefined) continue
    out[name.toLowerCase()] = typeof value === "string" ? value : value.join(", ")
  }
  return out
}

const untilAborted = <A>(promise: Promise<A>, signal: AbortSignal): Promise<A> =>
  new Promise<A>((resolve, reject) => {
    const onAbort = () => reject(new Error("aborted"))
    if (signal.aborted) return onAbort()
    signal.addEventListener("abort", onAbort, { once: true })
    promise.then(resolve, reject).finally(() => signal.removeEventListener("abort", onAbort))
  })

/** Drops a body we will not read; undici emits an abort error on it, which must not go unhandled. */
const discard = (body: Readable): void => {
  body.on("error", () => undefined)
  body.destroy()
}

const causeChain = (error: unknown): ReadonlyArray<unknown> => {
  const chain: Array<unknown> = []
  let current: unknown = error
  while (current !== undefined && current !== null && chain.length < 8) {
    chain.push(current)
    current = (current as { cause?: unknown }).cause
  }
  return chain
}

const describeNetworkError = (error: unknown): string => {
  for (const e of causeChain(error)) {
    const code = (e as { code?: unknown }).code
    if (typeof code === "string" && code.startsWith("E")) return `network error (${code})`
  }
  const message = error instanceof Error ? error.message : String(error)
  return `network error: ${message}`
}

/**
 * The safe client (R-WEB-1..4). Every hop — the first URL and each redirect —
 * passes the same gate: scheme and credentials (R-WEB-1), then the host's
 * addresses (R-WEB-2). The checked addresses are pinned for the host and the
 * connection pool's `lookup` hands out only those, so the socket goes to the
 * address that was checked, never to a second DNS answer (no rebinding window).
 *
 * Hosts in `policy.allowHosts` (the test-only allowance) skip the address check
 * and may use plain http without `allowInsecure`: a local test server has no
 * TLS certificate. The exemption is per host; a redirect elsewhere is checked.
 *
 * Bodies are not decompressed (`accept-encoding: identity`), so the size cap
 * measures what is kept.
 */
export const makeSafeFetchWith = (policy: SafeFetchPolicy, internals: SafeFetchInternals): SafeFetch => {
  const resolve = internals.resolve ?? systemResolver
  const check = internals.checkAddress ?? checkAddress
  const exempt = new Set(policy.allowHosts.map(normalizeHost))
  /** Normalized host → the addresses that passed the gate (or were exempt). */
  const pins = new Map<string, ReadonlyArray<ResolvedAddress>>()

  const pinnedLookup: LookupFunction = (hostname, options, callback) => {
    const family = options.family === "IPv4" ? 4 : options.family === "IPv6" ? 6 : Number(options.family ?? 0)
    const answers = (pins.get(normalizeHost(hostname)) ?? []).filter((a) => family === 0 || a.family === family)
    const first = answers[0]
    if (first === undefined) callback(new UncheckedHost(hostname), "")
    else if (options.all === true) callback(null, answers.map((a) => ({ address: a.address, family: a.family })))
    else callback(null, first.address, first.family)
  }

  let agent: Promise<Agent> | undefined
  const getAgent = (): Promise<Agent> =>
    (agent ??= import("undici").then((undici) => new undici.Agent(policy.trusted === true ? {} : { connect: { lookup: pinnedLookup } })))

  /** R-WEB-1 and R-WEB-2 for one hop; pins the host's checked addresses. */
  const gate = async (raw: string): Promise<URL> => {
    let url: URL
    try {
      url = new URL(raw)
    } catch {
      throw new FetchRefused({ url: raw, rule: "R-WEB-1", reason: "not a valid URL" })
    }
    url.hash = ""
    if (url.protocol !== "http:" && url.protocol !== "https:")
      throw new FetchRefused({ url: raw, rule: "R-WEB-1", reason: `scheme ${url.protocol} is not allowed; only http(s)` })
    if (url.username !== "" || url.password !== "")
      throw new FetchRefused({ url: raw, rule: "R-WEB-1", reason: "URLs with a username or password are not allowed" })
    if (policy.trusted === true) return url
    const host = normalizeHost(url.hostname)
    const allowed = exempt.has(host)
    if (url.protocol === "http:" && !policy.allowInsecure && !allowed)
      throw new FetchRefused({ url: raw, rule: "R-WEB-1", reason: "plain http is not allowed without --allow-insecure" })

    if (isIpLiteral(url.hostname)) {
      // Sockets connect to a literal directly (no lookup), so the literal is what is checked.
      const verdict = allowed ? undefined : check(url.hostname)
      if (verdict !== undefined && !verdict.allowed) throw new FetchRefused({ url: raw, rule: "R-WEB-2", reason: verdict.reason })
      return url
    }

    let answers: ReadonlyArray<ResolvedAddress>
    try {
      answers = await resolve(url.hostname)
    } catch (e) {
      const code = (e as { code?: unknown }).code
      throw new FetchRefused({
        url: raw,
        rule: "R-WEB-2",
        reason: `could not resolve ${url.hostname}${typeof code === "string" ? ` (${code})` : ""}; refused rather than guessed`
      })
    }
    if (answers.length === 0)
      throw new FetchRefused({ url: raw, rule: "R-WEB-2", reason: `${url.hostname} resolved to no address` })
    if (!allowed) {
      for (const answer of answers) {
        const verdict = check(answer.address)
        if (!verdict.allowed)
          throw new FetchRefused({ url: raw, rule: "R-WEB-2", reason: `${url.hostname} resolves to a refused address: ${verdict.reason}` })
      }
    }
    pins.set(host, answers)
    return url
  }

  /** The body as it arrives, counted against the cap; ends (or fails) the request's deadline with it. */
  async function* streamBody(body: Readable, url: string, declared: string | undefined, what: string, state: RequestState): AsyncGenerator<Uint8Array> {
    const tooLarge = () => new FetchFailed({ url, reason: `${what} larger than ${formatBytes(state.maxBytes)}`, tooLarge: true })
    try {
      if (declared !== undefined && /^\d+$/.test(declared) && Number(declared) > state.maxBytes) throw tooLarge()
      let total = 0
      for await (const chunk of body as AsyncIterable<Uint8Array>) {
        total += chunk.byteLength
        if (total > state.maxBytes) throw tooLarge()
        yield chunk
      }
    } catch (e) {
      throw mapError(e, url, state)
    } finally {
      discard(body)
      state.finish()
    }
  }

  const mapError = (e: unknown, url: string, state: RequestState): FetchRefused | FetchFailed => {
    if (e instanceof FetchRefused || e instanceof FetchFailed) return e
    if (state.timedOut()) return new FetchFailed({ url, reason: `timed out after ${state.timeoutMs / 1000} s`, timedOut: true })
    const unchecked = causeChain(e).find((c): c is UncheckedHost => c instanceof UncheckedHost)
    if (unchecked !== undefined) return new FetchRefused({ url, rule: "R-WEB-2", reason: `${unchecked.host} has no checked address` })
    return new FetchFailed({ url, reason: describeNetworkError(e) })
  }

  /**
   * Sends one request and follows redirects, each hop through the gate; the
   * answer's body streams (capped). The deadline covers the whole exchange,
   * body included, and ends when the body is read to the end or dropped.
   */
  const open = async (url: string, init: SafeRequestInit, interrupt: AbortSignal | undefined): Promise<SafeStream> => {
    const controller = new AbortController()
    let timedOut = false
    const timeoutMs = init.timeoutMs ?? policy.timeoutMs
    const timer = setTimeout(() => {
      timedOut = true
      controller.abort()
    }, timeoutMs)
    // A request in flight keeps the process alive through its socket; the deadline alone must not (a body left unread).
    timer.unref()
    const onInterrupt = () => controller.abort()
    interrupt?.addEventListener("abort", onInterrupt)
    const state: RequestState = {
      maxBytes: init.maxBytes ?? policy.maxBytes,
      timeoutMs,
      timedOut: () => timedOut,
      finish: () => {
        clearTimeout(timer)
        interrupt?.removeEventListener("abort", onInterrupt)
      }
    }
    let current = url
    try {
      const { request } = await import("undici")
      const dispatcher = await getAgent()
      let headers: Record<string, string> = {
        "user-agent": policy.userAgent,
        ...lowerCaseKeys(init.headers ?? {}),
        "accept-encoding": "identity"
      }
      let method = init.method ?? "GET"
      let body = init.body
      const redirects: Array<string> = []
      const visited = new Set<string>()
      for (;;) {
        // DNS has no signal of its own: the race keeps a hanging resolver inside the timeout.
        const target = await untilAborted(gate(current), controller.signal)
        visited.add(target.href)
        const response = await request(target, {
          dispatcher,
          method,
          headers,
          signal: controller.signal,
          ...(body === undefined ? {} : { body }),
          ...(policy.idleTimeoutMs === undefined ? {} : { headersTimeout: policy.idleTimeoutMs, bodyTimeout: policy.idleTimeoutMs })
        })
        const location = response.headers["location"]
        if (redirectStatuses.has(response.statusCode) && typeof location === "string") {
          await response.body.dump({ limit: 64 * 1024, signal: controller.signal })
          let next: URL
          try {
            next = new URL(location, target)
          } catch {
            throw new FetchFailed({ url, reason: `${target.href} redirects to an invalid location` })
          }
          if (redirects.length >= policy.maxRedirects)
            throw new FetchFailed({ url, reason: `too many redirects (more than ${policy.maxRedirects})` })
          if (visited.has(next.href)) throw new FetchFailed({ url, reason: `redirect loop at ${next.href}` })
          if (next.origin !== target.origin)
            headers = Object.fromEntries(Object.entries(headers).filter(([name]) => !originBoundHeaders.has(name)))
          // As browsers do: 307/308 repeat the request, the others continue with a GET.
          if (response.statusCode !== 307 && response.statusCode !== 308 && method !== "GET") {
            method = "GET"
            body = undefined
            headers = Object.fromEntries(Object.entries(headers).filter(([name]) => name !== "content-type" && name !== "content-length"))
          }
          redirects.push(next.href)
          current = next.href
          continue
        }
        const responseHeaders = flattenHeaders(response.headers)
        const finalUrl = target.href
        return {
          url,
          finalUrl,
          status: response.statusCode,
          headers: responseHeaders,
          redirects,
          body: streamBody(response.body, finalUrl, responseHeaders["content-length"], init.what ?? "page", state),
          cancel: () => {
            discard(response.body)
            state.finish()
          }
        }
      }
    } catch (e) {
      state.finish()
      throw mapError(e, current, state)
    }
  }

  const collect = async (stream: SafeStream): Promise<SafeResponse> => {
    const chunks: Array<Uint8Array> = []
    for await (const chunk of stream.body) chunks.push(chunk)
    const { url, finalUrl, status, headers, redirects } = stream
    return { url, finalUrl, status, headers, redirects, body: Buffer.concat(chunks) }
  }

  return {
    fetch: (url, init) =>
      Effect.tryPromise({
        try: (signal) => open(url, init ?? {}, signal).then(collect),
        catch: (e) =>
          e instanceof FetchRefused || e instanceof FetchFailed ? e : new FetchFailed({ url, reason: describeNetworkError(e) })
      }),
    open: (url, init, signal) => open(url, init ?? {}, signal),
    close: Effect.promise(async () => {
      const pending = agent
      agent = undefined
      // destroy, not close: close waits for every body to be read, and a caller that stopped reading one (isomorphic-git) would hang it.
      if (pending !== undefined) await (await pending).destroy()
    })
  }
}

export const makeSafeFetch = (policy: SafeFetchPolicy): SafeFetch => makeSafeFetchWith(policy, {})
