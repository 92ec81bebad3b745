import { Effect } from "effect"
import robotsParserModule from "robots-parser"
import type { SafeFetch } from "../../http/SafeHttp.js"

// The package is CommonJS (`module.exports = fn`) while its types declare `export default`:
// Node gives the function as the default import, the types expect `.default`. Accept both.
const robotsParser: typeof robotsParserModule.default =
  (robotsParserModule as unknown as { default?: typeof robotsParserModule.default }).default ??
  (robotsParserModule as unknown as typeof robotsParserModule.default)

/**
 * robots.txt for the crawler (spec 02 website, R-WEB-5): fetched once per
 * origin through the safe client and cached for the crawl.
 *
 * - 2xx → the rules (only the first 512 KiB are read, like the big crawlers:
 *   the page cap still bounds the download);
 * - other 4xx → no robots.txt, everything allowed; 429 counts as an overloaded
 *   server, like 5xx;
 * - 5xx, 429, a network failure or a refused fetch → everything disallowed;
 * - a 3xx left after the client followed the redirects it may → allowed (no file).
 */

export const robotsMaxBytes = 512 * 1024

export interface Robots {
  /** May the crawler fetch `url`? An unparsable URL is not allowed. */
  readonly allowed: (url: string) => Effect.Effect<boolean>
  /** Crawl-delay in seconds for our user agent, when the site sets one. */
  readonly crawlDelay: (url: string) => Effect.Effect<number | undefined>
}

interface Rules {
  readonly allowed: (url: string) => boolean
  readonly crawlDelay: number | undefined
}

const allowAll: Rules = { allowed: () => true, crawlDelay: undefined }
const disallowAll: Rules = { allowed: () => false, crawlDelay: undefined }

/** "akm-crawler (+https://…)" → "akm-crawler": robots groups name the product token only. */
export const productToken = (userAgent: string): string => userAgent.trim().split(/[\s/]/)[0] ?? userAgent

/** The first `max` bytes as text, without the line the cap cut in half. */
const capped = (body: Uint8Array, max: number): string => {
  if (body.byteLength <= max) return new TextDecoder().decode(body)
  const head = new TextDecoder().decode(body.subarray(0, max))
  const lastNewline = head.lastIndexOf("\n")
  return lastNewline === -1 ? "" : head.slice(0, lastNewline + 1)
}

export const makeRobots = (fetch: SafeFetch, userAgent: string): Robots => {
  const agent = productToken(userAgent)
  const cache = new Map<string, Effect.Effect<Rules>>()

  const load = (origin: string): Effect.Effect<Rules> => {
    const robotsUrl = `${origin}/robots.txt`
    return fetch.fetch(robotsUrl, { headers: { accept: "text/plain" } }).pipe(
      Effect.map((response): Rules => {
        if (response.status >= 200 && response.status < 300) {
          const parsed = robotsParser(robotsUrl, capped(response.body, robotsMaxBytes))
          // undefined means "another origin": never the case, since rules are cached per origin.
          return { allowed: (url) => parsed.isAllowed(url, agent) !== false, crawlDelay: parsed.getCrawlDelay(agent) }
        }
        if (response.status === 429 || response.status >= 500) return disallowAll
        return allowAll
      }),
      Effect.catchAll(() => Effect.succeed(disallowAll))
    )
  }

  const rulesFor = (url: string): Effect.Effect<Rules | undefined> =>
    Effect.suspend(() => {
      let origin: string
      try {
        origin = new URL(url).origin
      } catch {
        return Effect.succeed(undefined)
      }
      if (origin === "null") return Effect.succeed(undefined)
      let rules = cache.get(origin)
      if (rules === undefined) {
        // Effect.cached: concurrent callers share the one fetch.
        rules = Effect.runSync(Effect.cached(load(origin)))
        cache.set(origin, rules)
      }
      return rules
    })

  return {
    allowed: (url) => rulesFor(url).pipe(Effect.map((rules) => rules !== undefined && rules.allowed(url))),
    crawlDelay: (url) => rulesFor(url).pipe(Effect.map((rules) => rules?.crawlDelay))
  }
}
