import { promises as dns } from "node:dns"
import { Data, Effect } from "effect"
import type { LookupFunction } from "node:net"
import type { Readable } from "node:stream"
import type { Agent } from "undici"
import { type AddressVerdict, checkAddress, isIpLiteral, normalizeHost } from "./AddressPolicy.js"

/**
 * The one HTTP client the website materializer uses (spec 02 §2 website,
 * R-WEB-1..4). undici is loaded lazily, on the first request (CLI start-up).
 */
export interface SafeFetchPolicy {
  /** Host names or IP literals exempt from the address check: the explicit test allowance (config website.allowHosts). */
  readonly allowHosts: ReadonlyArray<string>
  /** Plain http permitted (--allow-insecure). */
  readonly allowInsecure: boolean
  /** Per response body, bytes (5 MiB). */
  readonly maxBytes: number
  /** Per request, including redirects and body (15 s). */
  readonly timeoutMs: number
  /** Redirect hops (8). */
  readonly maxRedirects: number
  readonly userAgent: string
}

export const defaultFetchPolicy: SafeFetchPolicy = {
  allowHosts: [],
  allowInsecure: false,
  maxBytes: 5 * 1024 * 1024,
  timeoutMs: 15_000,
  maxRedirects: 8,
  userAgent: "akm-crawler (+https://github.com/akm)"
}

export interface SafeResponse {
  /** The URL requested. */
  readonly url: string
  /** The URL answered after redirects. */
  readonly finalUrl: string
  readonly status: number
  /** Lower-case header names. */
  readonly headers: Readonly<Record<string, string>>
  readonly body: Uint8Array
  /** Every hop followed, in order (not including the first URL). */
  readonly redirects: ReadonlyArray<string>
}

/** A request the safety rules refuse; `rule` names the requirement (R-WEB-1 … R-WEB-5). */
export class FetchRefused extends Data.TaggedError("FetchRefused")<{
  readonly url: string
  readonly rule: string
  readonly reason: string
}> {
  override get message(): string {
    return `${this.url}: refused (${this.rule}): ${this.reason}`
  }
}

/** A request that could not complete: network error, timeout, oversize body, too many redirects. */
export class FetchFailed extends Data.TaggedError("FetchFailed")<{
  readonly url: string
  readonly reason: string
}> {
  override get message(): string {
    return `${this.url}: ${this.reason}`
  }
}

export interface SafeFetch {
  readonly fetch: (url: string, init?: { readonly headers?: Readonly<Record<string, string>> }) => Effect.Effect<SafeResponse, FetchRefused | FetchFailed>
  /** Closes the connection pool. */
  readonly close: Effect.Effect<void>
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
    (agent ??= import("undici").then((undici) => new undici.Agent({ connect: { lookup: pinnedLookup } })))

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

  const readBody = async (body: Readable, url: string, declared: string | undefined): Promise<Uint8Array> => {
    const tooLarge = () => new FetchFailed({ url, reason: `page larger than ${formatBytes(policy.maxBytes)}` })
    if (declared !== undefined && /^\d+$/.test(declared) && Number(declared) > policy.maxBytes) {
      discard(body)
      throw tooLarge()
    }
    const chunks: Array<Uint8Array> = []
    let total = 0
    for await (const chunk of body) {
      total += chunk.byteLength
      if (total > policy.maxBytes) {
        discard(body)
        throw tooLarge()
      }
      chunks.push(chunk)
    }
    return Buffer.concat(chunks, total)
  }

  const run = async (url: string, init: { readonly headers?: Readonly<Record<string, string>> }, interrupt: AbortSignal): Promise<SafeResponse> => {
    const controller = new AbortController()
    let timedOut = false
    const timer = setTimeout(() => {
      timedOut = true
      controller.abort()
    }, policy.timeoutMs)
    const onInterrupt = () => controller.abort()
    interrupt.addEventListener("abort", onInterrupt)
    let current = url
    try {
      const { request } = await import("undici")
      const dispatcher = await getAgent()
      let headers: Record<string, string> = {
        "user-agent": policy.userAgent,
        ...lowerCaseKeys(init.headers ?? {}),
        "accept-encoding": "identity"
      }
      const redirects: Array<string> = []
      const visited = new Set<string>()
      for (;;) {
        // DNS has no signal of its own: the race keeps a hanging resolver inside the timeout.
        const target = await untilAborted(gate(current), controller.signal)
        visited.add(target.href)
        const response = await request(target, { dispatcher, method: "GET", headers, signal: controller.signal })
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
          redirects.push(next.href)
          current = next.href
          continue
        }
        const responseHeaders = flattenHeaders(response.headers)
        const body = await readBody(response.body, current, responseHeaders["content-length"])
        return { url, finalUrl: target.href, status: response.statusCode, headers: responseHeaders, body, redirects }
      }
    } catch (e) {
      if (e instanceof FetchRefused || e instanceof FetchFailed) throw e
      if (timedOut) throw new FetchFailed({ url: current, reason: `timed out after ${policy.timeoutMs / 1000} s` })
      const unchecked = causeChain(e).find((c): c is UncheckedHost => c instanceof UncheckedHost)
      if (unchecked !== undefined)
        throw new FetchRefused({ url: current, rule: "R-WEB-2", reason: `${unchecked.host} has no checked address` })
      throw new FetchFailed({ url: current, reason: describeNetworkError(e) })
    } finally {
      clearTimeout(timer)
      interrupt.removeEventListener("abort", onInterrupt)
    }
  }

  return {
    fetch: (url, init) =>
      Effect.tryPromise({
        try: (signal) => run(url, init ?? {}, signal),
        catch: (e) =>
          e instanceof FetchRefused || e instanceof FetchFailed ? e : new FetchFailed({ url, reason: describeNetworkError(e) })
      }),
    close: Effect.promise(async () => {
      const pending = agent
      agent = undefined
      if (pending !== undefined) await (await pending).close()
    })
  }
}

export const makeSafeFetch = (policy: SafeFetchPolicy): SafeFetch => makeSafeFetchWith(policy, {})
