import * as HttpClient from "@effect/platform/HttpClient"
import type { HttpClientError } from "@effect/platform/HttpClientError"
import { Effect, Either, Schema } from "effect"
import { NotFound } from "../../domain/Errors.js"
import { matchHits, NPM_KEYWORD, NpmSearchAnswer, npmHits, RegistryIndex, RegistryUnavailable, staticHits, type RegistryHit } from "../../domain/Registry.js"
import { Progress } from "../../services/Progress.js"
import { WorkspaceConfig } from "../../services/WorkspaceConfig.js"

export interface RegistrySearchInput {
  readonly query: string
  /** Ask only the registry of this name. */
  readonly registry?: string | undefined
}

export interface RegistrySummary {
  readonly name: string
  readonly kind: "static" | "npm"
  readonly url: string
  /** Hits from this registry; null when it failed. */
  readonly hits: number | null
  /** Entries it listed that were unusable (invalid, or not an installable remote source). */
  readonly skipped: number
}

export interface RegistrySearchResult {
  readonly query: string
  readonly registries: ReadonlyArray<RegistrySummary>
  readonly hits: ReadonlyArray<RegistryHit>
  readonly failed: ReadonlyArray<{ readonly registry: string; readonly url: string; readonly reason: string }>
  readonly ok: boolean
}

const TIMEOUT = "15 seconds"

export const NO_REGISTRIES_HINT = `no registries configured; add one to config.yaml, e.g.
registries:
  - { name: team, url: https://kb.example.com/akm-index.json }
  - { name: npm, kind: npm, url: https://registry.npmjs.org }`

const NETWORK_HINT = "check the URL and your network, or try again later"

/** What the bundle HTTP client puts in a RequestError's cause (FetchRefused / FetchFailed); read by tag, programs import no layer. */
interface SafeHttpCause {
  readonly _tag: string
  readonly reason: string
  readonly hint?: string
}

const isSafeHttpCause = (cause: unknown): cause is SafeHttpCause =>
  typeof cause === "object" && cause !== null && ["FetchRefused", "FetchFailed"].includes(String((cause as { _tag?: unknown })._tag)) && typeof (cause as { reason?: unknown }).reason === "string"

/** The bundle HTTP client's refusal or failure, else the HttpClient error, as a reason and what to do. */
const httpProblem = (error: HttpClientError): { reason: string; hint: string } => {
  if (error._tag === "RequestError" && isSafeHttpCause(error.cause)) {
    const cause = error.cause
    if (cause._tag === "FetchRefused") return { reason: `refused: ${cause.reason}`, hint: cause.hint ?? NETWORK_HINT }
    const code = /^network error \((\w+)\)$/.exec(cause.reason)?.[1]
    return { reason: code === undefined ? `failed: ${cause.reason}` : `is unreachable (${code})`, hint: NETWORK_HINT }
  }
  return { reason: httpReason(error), hint: NETWORK_HINT }
}

const httpReason = (error: HttpClientError): string => {
  if (error._tag === "ResponseError") return error.reason === "StatusCode" ? `answered HTTP ${error.response.status}` : "sent an unreadable answer"
  // fetch wraps the socket error: "fetch failed" ← ECONNREFUSED/ENOTFOUND …
  const cause = error.cause as { message?: string; cause?: { code?: string; message?: string } } | undefined
  const detail = cause?.cause?.code ?? cause?.cause?.message ?? cause?.message
  return error.reason === "InvalidUrl" ? "is not a valid URL" : `is unreachable${detail === undefined ? "" : ` (${detail})`}`
}

/**
 * `akm registry search <q> [--registry name]` (spec 02 §3): asks each
 * configured registry — a static JSON index, or an npm registry's search API
 * for packages with the `akm-bundle` keyword — and lists installable bundles
 * with their install command. Discovery only: nothing is installed, and
 * nothing enters the local index or search.
 */
export const registrySearch = Effect.fn("registry.search")(function* (input: RegistrySearchInput) {
  const config = yield* (yield* WorkspaceConfig).read
  const progress = yield* Progress
  const configured = config.registries ?? []
  if (input.registry !== undefined && !configured.some((r) => r.name === input.registry)) {
    return yield* new NotFound({
      what: "registry",
      name: input.registry,
      message: `no registry named '${input.registry}'`,
      hint: configured.length === 0 ? NO_REGISTRIES_HINT : `configured registries: ${configured.map((r) => r.name).join(", ")}`
    })
  }
  if (configured.length === 0) {
    yield* progress.warn(`hint: ${NO_REGISTRIES_HINT}`)
    return { query: input.query, registries: [], hits: [], failed: [], ok: true } satisfies RegistrySearchResult
  }
  const selected = configured.filter((r) => input.registry === undefined || r.name === input.registry)
  const client = HttpClient.filterStatusOk(yield* HttpClient.HttpClient)

  const ask = (registry: (typeof selected)[number]) =>
    Effect.gen(function* () {
      const kind = registry.kind ?? "static"
      const base = registry.url.replace(/\/+$/, "")
      const url = kind === "npm" ? `${base}/-/v1/search?${new URLSearchParams({ text: `${input.query} keywords:${NPM_KEYWORD}`, size: "50" })}` : registry.url
      const unavailable = (reason: string, hint: string) => new RegistryUnavailable({ registry: registry.name, url, reason, hint })
      if (!/^https?:\/\//i.test(url)) return yield* unavailable("is not an http(s) URL", `fix registries[].url for '${registry.name}' in config.yaml`)
      yield* progress.update(`registry ${registry.name}`, 0)
      const body = yield* client.get(url, { headers: { accept: "application/json" } }).pipe(
        Effect.flatMap((response) => response.json),
        Effect.mapError((e) => {
          const problem = httpProblem(e)
          return unavailable(problem.reason, problem.hint)
        }),
        Effect.timeoutFail({ duration: TIMEOUT, onTimeout: () => unavailable(`did not answer within ${TIMEOUT}`, "try again later") })
      )
      yield* progress.done(`registry ${registry.name}`)
      const shapeHint = kind === "npm" ? "is it an npm registry? set kind: static for a JSON index" : "a static index is JSON: { \"bundles\": [ { \"name\", \"description\", \"source\" } ] }"
      if (kind === "npm") {
        const answer = Schema.decodeUnknownEither(NpmSearchAnswer)(body)
        if (Either.isLeft(answer)) return yield* unavailable("did not answer like an npm search API", shapeHint)
        return { registry, url, ...npmHits(registry.name, answer.right) }
      }
      const index = Schema.decodeUnknownEither(RegistryIndex)(body)
      if (Either.isLeft(index)) return yield* unavailable("is not a registry index (no \"bundles\" list)", shapeHint)
      const all = staticHits(registry.name, index.right.bundles)
      return { registry, url, hits: matchHits(input.query, all.hits), skipped: all.skipped }
    }).pipe(Effect.either)

  const answers = yield* Effect.forEach(selected, ask, { concurrency: 4 })
  const failures = answers.flatMap((a) => (Either.isLeft(a) ? [a.left] : []))
  for (const f of failures.slice(failures.length === answers.length ? 1 : 0)) yield* progress.warn(`error: ${f.message}`)
  if (failures.length === answers.length) return yield* failures[0]!
  return {
    query: input.query,
    registries: answers.map((a, i): RegistrySummary => {
      const registry = selected[i]!
      const summary = { name: registry.name, kind: registry.kind ?? "static", url: registry.url }
      return Either.isRight(a) ? { ...summary, hits: a.right.hits.length, skipped: a.right.skipped } : { ...summary, hits: null, skipped: 0 }
    }),
    hits: answers.flatMap((a) => (Either.isRight(a) ? a.right.hits : [])),
    failed: failures.map((f) => ({ registry: f.registry, url: f.url, reason: f.reason })),
    ok: failures.length === 0
  } satisfies RegistrySearchResult
})
