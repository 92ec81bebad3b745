import { Clock, Data, Duration, Effect, Either, Option } from "effect"
import type { SnapshotPage } from "../../adapters/website-snapshot/manifest.js"
import type { MaterializeDiagnostic } from "../../../services/Materializer.js"
import type { ConvertedPage } from "./HtmlToMarkdown.js"
import { dedupe, looksBinary, originOf, resolveLink } from "./Links.js"
import { PagePaths } from "./PagePath.js"
import { pageKind, toMarkdown } from "./PageContent.js"
import type { Robots } from "./Robots.js"
import type { FetchFailed, FetchRefused, SafeFetch } from "../../http/SafeHttp.js"
import { readIntact, sha256Hex, writePage, type PreviousSnapshot } from "./Snapshot.js"

/**
 * The crawl (spec 02 "website"): breadth-first from the start URL over
 * same-origin links, robots.txt honoured (R-WEB-5), every page through the
 * safe client (R-WEB-1..3), within the caps of R-WEB-4. A page that fails is
 * a diagnostic and the crawl goes on; only the start page failing fails the
 * crawl. When a cap cuts the crawl short the pages so far are kept and the
 * result says it is incomplete.
 */

export interface CrawlLimits {
  readonly maxPages: number
  /** Link hops from the start page (the start page is depth 0). */
  readonly maxDepth: number
  /** The whole crawl, start to last page. */
  readonly maxCrawlMs: number
}

export const defaultCrawlLimits: CrawlLimits = { maxPages: 50, maxDepth: 3, maxCrawlMs: 10 * 60_000 }

/** Requests in flight at once; 1 when robots.txt asks for a crawl delay. */
const CONCURRENCY = 4
/** A crawl-delay above this is capped (the crawl's time limit still applies). */
const MAX_CRAWL_DELAY_S = 30
/** Fetch attempts per page slot: a site of dead links cannot keep the crawler busy forever. */
const ATTEMPTS_PER_PAGE = 4

const ACCEPT = "text/html, application/xhtml+xml;q=0.9, text/markdown;q=0.8, text/plain;q=0.7, */*;q=0.1"

export interface CrawlOptions {
  readonly startUrl: string
  readonly fetch: SafeFetch
  readonly robots: Robots
  readonly limits: CrawlLimits
  /** The directory the page files are written to. */
  readonly root: string
  /** The last snapshot, for conditional requests (R-WEB-7); absent on a first crawl or a forced refresh. */
  readonly previous?: PreviousSnapshot | undefined
  readonly progress: (pagesDone: number) => Effect.Effect<void>
}

export interface CrawlResult {
  readonly startUrl: string
  readonly fetchedAtMs: number
  readonly pages: ReadonlyArray<SnapshotPage>
  /** false when a cap (pages, depth, time, attempts) left pages unvisited (R-WEB-4). */
  readonly complete: boolean
  readonly diagnostics: ReadonlyArray<MaterializeDiagnostic>
}

/** The start page could not be had (or the snapshot could not be written): nothing usable was crawled. */
export class CrawlFailed extends Data.TaggedError("CrawlFailed")<{
  readonly reason: string
  readonly hint: string
}> {}

type ProblemCode = "page-refused" | "page-failed" | "page-too-large" | "page-skipped" | "robots-disallowed"

interface Problem {
  readonly code: ProblemCode
  readonly message: string
  readonly hint: string
}

type Visit =
  | { readonly _tag: "Page"; readonly url: string; readonly finalUrl: string; readonly page: ConvertedPage; readonly etag?: string | undefined; readonly lastModified?: string | undefined; readonly fetchedAt: string }
  | { readonly _tag: "Unchanged"; readonly url: string; readonly finalUrl: string; readonly entry: SnapshotPage; readonly file: string }
  | { readonly _tag: "Skipped"; readonly url: string; readonly problem: Problem }

const ROBOTS_HINT = "the site's robots.txt does not allow akm-crawler here"
const NETWORK_HINT = "check the URL and the network; a failed update keeps the previous snapshot"

const at = (url: string, failedAt: string): string => (failedAt === url ? "" : ` (at ${failedAt})`)

const fetchProblem = (url: string, error: FetchRefused | FetchFailed): Problem =>
  error._tag === "FetchRefused"
    ? { code: "page-refused", message: `refused: ${error.reason}${at(url, error.url)}`, hint: error.rule === "R-WEB-5" ? ROBOTS_HINT : error.hint }
    : {
      // The safe client words the body cap as "page larger than <cap>".
      code: error.reason.startsWith("page larger than") ? "page-too-large" : "page-failed",
      message: `${error.reason}${at(url, error.url)}`,
      hint: NETWORK_HINT
    }

const skipped = (url: string, code: ProblemCode, message: string, hint = NETWORK_HINT): Visit => ({ _tag: "Skipped", url, problem: { code, message, hint } })

const isoNow = Effect.map(Clock.currentTimeMillis, (ms) => new Date(ms).toISOString())

/** Fetches one URL and converts it; never fails (a failure is a `Skipped` visit). */
const visit = (options: CrawlOptions, url: string): Effect.Effect<Visit> =>
  Effect.gen(function* () {
    if (!(yield* options.robots.allowed(url))) return skipped(url, "robots-disallowed", "robots.txt does not allow fetching this page", ROBOTS_HINT)
    const before = options.previous?.pages.get(url)
    const validators: Record<string, string> = {}
    if (before?.entry.etag !== undefined) validators["if-none-match"] = before.entry.etag
    if (before?.entry.lastModified !== undefined) validators["if-modified-since"] = before.entry.lastModified
    const response = yield* Effect.either(options.fetch.fetch(url, { headers: { accept: ACCEPT, ...validators } }))
    if (Either.isLeft(response)) return { _tag: "Skipped", url, problem: fetchProblem(url, response.left) } satisfies Visit
    const { status, headers, body, finalUrl } = response.right
    if (status === 304 && before !== undefined && Object.keys(validators).length > 0) return { _tag: "Unchanged", url, finalUrl, entry: before.entry, file: before.file } satisfies Visit
    if (status < 200 || status > 299) return skipped(url, "page-failed", `the server answered HTTP ${status}`)
    const contentType = headers["content-type"]
    const kind = pageKind(contentType)
    if (kind === undefined) return skipped(url, "page-skipped", `not a page (${contentType ?? "no content type"})`, "only HTML, markdown and plain-text pages are kept")
    const fetchedAt = yield* isoNow
    const page = yield* Effect.either(Effect.tryPromise(() => toMarkdown(kind, body, contentType, finalUrl)))
    if (Either.isLeft(page)) return skipped(url, "page-failed", `could not convert the page: ${String((page.left.cause as Error)?.message ?? page.left.cause)}`)
    return { _tag: "Page", url, finalUrl, page: page.right, etag: headers["etag"], lastModified: headers["last-modified"], fetchedAt } satisfies Visit
  })

/** Why robots.txt turned the start page down, in words a user can act on (the Robots service only says no). */
const explainRobots = (fetch: SafeFetch, startUrl: string): Effect.Effect<Problem> => {
  const robotsUrl = `${originOf(startUrl)}/robots.txt`
  return fetch.fetch(robotsUrl, { headers: { accept: "text/plain" } }).pipe(
    Effect.match({
      // The refusal that kept robots.txt out applies to the whole origin: report it as the start page's.
      onFailure: (error): Problem =>
        error._tag === "FetchRefused"
          ? fetchProblem(error.url, error)
          : { code: "robots-disallowed", message: `cannot fetch ${robotsUrl}: ${error.reason}; without it nothing may be crawled`, hint: NETWORK_HINT },
      onSuccess: ({ status }): Problem =>
        status === 429 || status >= 500
          ? { code: "robots-disallowed", message: `robots.txt answered HTTP ${status}, which akm reads as "disallow all"`, hint: "try again later, when the site answers normally" }
          : { code: "robots-disallowed", message: "robots.txt does not allow fetching the start page", hint: ROBOTS_HINT }
    })
  )
}

export const crawl = (options: CrawlOptions): Effect.Effect<CrawlResult, CrawlFailed> =>
  Effect.gen(function* () {
    const { limits, robots } = options
    const startUrl = resolveLink(options.startUrl, options.startUrl) ?? options.startUrl
    const startedAt = yield* Clock.currentTimeMillis
    const deadline = startedAt + limits.maxCrawlMs
    /** Runs `effect` within the crawl's time limit; None when the limit ran out first. */
    const inTime = <A>(effect: Effect.Effect<A>): Effect.Effect<Option.Option<A>> =>
      Effect.flatMap(Clock.currentTimeMillis, (now) => (now >= deadline ? Effect.succeedNone : Effect.timeoutOption(effect, Duration.millis(deadline - now))))

    const pages: Array<SnapshotPage> = []
    const diagnostics: Array<MaterializeDiagnostic> = []
    const paths = new PagePaths()
    /** Every URL queued or answered (requested and final), so no page is fetched or written twice. */
    const known = new Set<string>([startUrl])
    let origin = originOf(startUrl)
    let truncated = false

    const write = (pagePath: string, text: string) =>
      Effect.try({
        try: () => writePage(options.root, pagePath, text),
        catch: (cause) => new CrawlFailed({ reason: `could not write the snapshot: ${String((cause as Error)?.message ?? cause)}`, hint: "check the permissions and free space of the akm cache folder (akm info shows it)" })
      })

    /** Adds a visit's page to the snapshot and returns the links to follow from it. */
    const record = (result: Visit, depth: number): Effect.Effect<ReadonlyArray<string>, CrawlFailed> =>
      Effect.gen(function* () {
        if (result._tag === "Skipped") {
          diagnostics.push({ code: result.problem.code, message: result.problem.message, path: result.url })
          return []
        }
        const finalUrl = resolveLink(result.finalUrl, result.finalUrl) ?? result.finalUrl
        if (originOf(finalUrl) !== origin) {
          diagnostics.push({ code: "page-refused", message: `redirected to another origin (${finalUrl}); only ${origin} is crawled`, path: result.url })
          return []
        }
        if (finalUrl !== result.url && known.has(finalUrl)) return [] // another link already led to this page
        known.add(finalUrl)
        const pagePath = paths.take(result.url)
        let entry: SnapshotPage
        if (result._tag === "Unchanged") {
          const text = readIntact(result.file, result.entry.contentHash ?? "")
          if (text === undefined) {
            diagnostics.push({ code: "page-failed", message: "the server said the page is unchanged, but the previous copy is gone; it is fetched again next time", path: result.url })
            return []
          }
          yield* write(pagePath, text)
          entry = { ...result.entry, path: pagePath, finalUrl }
        } else {
          yield* write(pagePath, result.page.markdown)
          entry = {
            path: pagePath,
            url: result.url,
            finalUrl,
            title: result.page.title,
            contentHash: sha256Hex(result.page.markdown),
            links: result.page.links,
            ...(result.etag === undefined ? {} : { etag: result.etag }),
            ...(result.lastModified === undefined ? {} : { lastModified: result.lastModified }),
            fetchedAt: result.fetchedAt
          }
        }
        pages.push(entry)
        yield* options.progress(pages.length)
        const follow = dedupe(entry.links ?? []).filter((link) => !known.has(link) && originOf(link) === origin && !looksBinary(link))
        if (depth >= limits.maxDepth) {
          if (follow.length > 0) truncated = true
          return []
        }
        for (const link of follow) known.add(link)
        return follow
      })

    // The start page: its failure is the crawl's failure, and its final URL fixes the origin.
    yield* options.progress(0)
    if (!(yield* robots.allowed(startUrl))) {
      const problem = yield* explainRobots(options.fetch, startUrl)
      return yield* new CrawlFailed({ reason: problem.message, hint: problem.hint })
    }
    const first = yield* inTime(visit(options, startUrl))
    if (Option.isNone(first)) return yield* new CrawlFailed({ reason: `the start page did not answer within the crawl's time limit (${limits.maxCrawlMs / 1000} s)`, hint: NETWORK_HINT })
    if (first.value._tag === "Skipped") return yield* new CrawlFailed({ reason: first.value.problem.message, hint: first.value.problem.hint })
    origin = originOf(first.value.finalUrl)
    let frontier = yield* record(first.value, 0)

    const delay = yield* robots.crawlDelay(startUrl)
    const concurrency = delay !== undefined && delay > 0 ? 1 : CONCURRENCY
    const pause = concurrency === 1 && delay !== undefined ? Effect.sleep(Duration.seconds(Math.min(delay, MAX_CRAWL_DELAY_S))) : Effect.void
    const maxAttempts = limits.maxPages * ATTEMPTS_PER_PAGE
    let attempts = 1
    let stoppedBy: string | undefined

    for (let depth = 1; frontier.length > 0 && stoppedBy === undefined; depth++) {
      const next: Array<string> = []
      for (let i = 0; i < frontier.length && stoppedBy === undefined; ) {
        const free = limits.maxPages - pages.length
        if (free <= 0) stoppedBy = `the page limit (${limits.maxPages})`
        else if (attempts >= maxAttempts) stoppedBy = `the request limit (${maxAttempts})`
        if (stoppedBy !== undefined) break
        const batch = frontier.slice(i, i + Math.min(concurrency, free))
        i += batch.length
        attempts += batch.length
        const results = yield* Effect.forEach(batch, (url) => inTime(Effect.zipRight(pause, visit(options, url))), { concurrency })
        for (const result of results) {
          if (Option.isNone(result)) stoppedBy = `the crawl's time limit (${limits.maxCrawlMs / 1000} s)`
          else next.push(...(yield* record(result.value, depth)))
        }
      }
      frontier = next
    }
    if (stoppedBy === undefined && truncated) stoppedBy = `the depth limit (${limits.maxDepth})`
    if (stoppedBy !== undefined) diagnostics.push({ code: "snapshot-partial", message: `the crawl stopped at ${stoppedBy}; the snapshot holds the ${pages.length} pages fetched so far` })
    return { startUrl, fetchedAtMs: startedAt, pages, complete: stoppedBy === undefined, diagnostics }
  })
