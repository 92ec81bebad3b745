import { Data, Effect } from "effect"

/**
 * The one HTTP client the website materializer uses (spec 02 §2 website,
 * R-WEB-1..4). Placeholder types; the implementation lands with the crawler's
 * safety work.
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

export const makeSafeFetch = (_policy: SafeFetchPolicy): SafeFetch => ({
  fetch: (url) => Effect.fail(new FetchFailed({ url, reason: "not built yet" })),
  close: Effect.void
})
