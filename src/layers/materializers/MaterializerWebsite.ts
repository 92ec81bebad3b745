import { Clock, Effect } from "effect"
import type { WebsiteSource } from "../../domain/Config.js"
import { MaterializeFailed, type Materialized, type MaterializeOptions } from "../../services/Materializer.js"
import { commitStaging, discardStaging, makeStagingDir } from "./CacheSources.js"
import type { MaterializerContext, SourceMaterializer } from "./SourceMaterializer.js"
import { crawl, defaultCrawlLimits, type CrawlLimits } from "./website/Crawler.js"
import { makeRobots } from "./website/Robots.js"
import { defaultFetchPolicy, makeSafeFetch, type SafeFetchPolicy } from "../http/SafeHttp.js"
import { readPreviousSnapshot, snapshotRevision, writeManifest } from "./website/Snapshot.js"
import { plural } from "../../domain/Plural.js"

/**
 * Website sources (spec 02 "website"): a crawl into a new snapshot revision
 * under $CACHE/sources/<bundle>/<revision> — markdown pages plus
 * manifest.json, read by the website-snapshot adapter. Every refresh writes a
 * new revision; a refresh that cannot fetch the start page fails and leaves
 * the previous one untouched (R-WEB-7, R-BUN-2). With a previous snapshot (and
 * no --force) pages are requested conditionally and a 304 reuses the old copy.
 */

/** The caps of R-WEB-4, replaceable so tests can hit them in milliseconds. */
export interface WebsiteLimits extends CrawlLimits {
  readonly maxBytes: number
  readonly timeoutMs: number
}

export const defaultWebsiteLimits: WebsiteLimits = { ...defaultCrawlLimits, maxBytes: defaultFetchPolicy.maxBytes, timeoutMs: defaultFetchPolicy.timeoutMs }

type Website = typeof WebsiteSource.Type

const failure = (bundle: string, source: Website, reason: string, hint: string) => new MaterializeFailed({ bundle, source: source.url, reason, hint })

const crawlWebsite = (ctx: MaterializerContext, limits: WebsiteLimits, bundle: string, source: Website, options: MaterializeOptions): Effect.Effect<Materialized, MaterializeFailed> =>
  Effect.gen(function* () {
    const config = yield* Effect.mapError(ctx.config, (cause) => failure(bundle, source, `cannot read the configuration: ${String((cause as Error)?.message ?? cause)}`, "fix config.yaml (akm config validate)"))
    const policy: SafeFetchPolicy = {
      ...defaultFetchPolicy,
      allowHosts: config.website?.allowHosts ?? [],
      allowInsecure: source.allowInsecure ?? false,
      maxBytes: limits.maxBytes,
      timeoutMs: limits.timeoutMs
    }
    const crawlLimits: CrawlLimits = { maxPages: source.maxPages ?? limits.maxPages, maxDepth: source.maxDepth ?? limits.maxDepth, maxCrawlMs: limits.maxCrawlMs }
    const previous = options.previous === undefined || options.force === true ? undefined : readPreviousSnapshot(options.previous.root)
    const staging = yield* Effect.try({
      try: () => makeStagingDir(ctx.sourcesDir, bundle),
      catch: (cause) => failure(bundle, source, `cannot create the snapshot folder: ${String((cause as Error)?.message ?? cause)}`, "check the permissions of the akm cache folder (akm info shows it)")
    })
    const task = `crawl ${bundle}`
    const fetch = makeSafeFetch(policy)
    return yield* Effect.gen(function* () {
      const result = yield* crawl({
        startUrl: source.url,
        fetch,
        robots: makeRobots(fetch, policy.userAgent),
        limits: crawlLimits,
        root: staging,
        previous,
        progress: (done) => ctx.progress(task, done, crawlLimits.maxPages)
      }).pipe(Effect.mapError((e) => failure(bundle, source, e.reason, e.hint)))
      const revision = snapshotRevision(result.fetchedAtMs, result.pages)
      const root = yield* Effect.try({
        try: () => {
          writeManifest(staging, { url: result.startUrl, fetchedAt: new Date(result.fetchedAtMs).toISOString(), revision, complete: result.complete, pages: result.pages })
          return commitStaging(ctx.sourcesDir, bundle, revision, staging)
        },
        catch: (cause) => failure(bundle, source, `cannot write the snapshot: ${String((cause as Error)?.message ?? cause)}`, "check the permissions and free space of the akm cache folder (akm info shows it)")
      })
      const took = (yield* Clock.currentTimeMillis) - result.fetchedAtMs
      yield* ctx.progressDone(task, `${plural(result.pages.length, "page")} in ${(took / 1000).toFixed(1)} s${result.complete ? "" : " (partial)"}`)
      return {
        root,
        revision,
        locator: source.url,
        ...(result.diagnostics.length === 0 ? {} : { diagnostics: result.diagnostics }),
        ...(result.complete ? {} : { partial: true })
      } satisfies Materialized
    }).pipe(
      Effect.onError(() => Effect.sync(() => discardStaging(staging))),
      Effect.ensuring(fetch.close)
    )
  })

export const makeWebsiteMaterializer = (ctx: MaterializerContext, limits: Partial<WebsiteLimits> = {}): SourceMaterializer<"website"> => {
  const effective: WebsiteLimits = { ...defaultWebsiteLimits, ...limits }
  return {
    kind: "website",
    cached: true,
    materialize: (bundle, source, options) => crawlWebsite(ctx, effective, bundle, source, options)
  }
}
