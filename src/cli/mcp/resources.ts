import * as McpSchema from "@effect/ai/McpSchema"
import { McpServer } from "@effect/ai/McpServer"
import { Effect, Layer } from "effect"
import type { AkmServices } from "../run.js"
import { show } from "../../programs/show.js"
import { Redactor } from "../../services/Redactor.js"
import { WorkspaceConfig } from "../../services/WorkspaceConfig.js"
import { McpFreshness } from "./freshness.js"
import { toolFailure } from "./handlers.js"

/** `akm://<bundle>//<id>[#fragment]`: an item by its ref (spec 01), as an MCP resource. */
export const REF_TEMPLATE = "akm://{bundle}//{id}"
const SCHEME = "akm://"

/** The ref in a resource URI, or undefined when the URI is not akm's. */
export const refOfUri = (uri: string): string | undefined => {
  if (!uri.startsWith(SCHEME)) return undefined
  const rest = uri.slice(SCHEME.length)
  if (!rest.includes("//")) return undefined
  try {
    return decodeURIComponent(rest)
  } catch {
    return undefined
  }
}

/** At most this many bundle names per completion (MCP allows 100). */
const MAX_COMPLETIONS = 100

/**
 * The ref resource template, with completion of bundle names. The template is
 * matched by akm itself (router path `*`): ids hold slashes, which the
 * server's path router would split.
 */
export const RefResources = Layer.effectDiscard(
  Effect.gen(function* () {
    const server = yield* McpServer
    const services = yield* Effect.context<AkmServices>()
    const ensureFresh = yield* McpFreshness
    const bundleNames = (input: string) =>
      Effect.flatMap(WorkspaceConfig, (config) => config.read).pipe(
        Effect.map((config) => Object.keys(config.bundles).filter((name) => name.startsWith(input)).sort()),
        Effect.orElseSucceed((): ReadonlyArray<string> => []),
        Effect.map((names) => new McpSchema.CompleteResult({ completion: { values: names.slice(0, MAX_COMPLETIONS), total: names.length, hasMore: names.length > MAX_COMPLETIONS } })),
        Effect.provide(services)
      )
    yield* server.addResourceTemplate({
      template: new McpSchema.ResourceTemplate({
        uriTemplate: REF_TEMPLATE,
        name: "akm item",
        description: "An item of a mounted bundle by its ref, e.g. akm://notes//guides/setup (its full native text).",
        mimeType: "text/markdown"
      }),
      routerPath: "*",
      completions: { bundle: bundleNames },
      handle: (uri) => {
        const ref = refOfUri(uri)
        if (ref === undefined) return Effect.fail(new McpSchema.InvalidParams({ message: `not an akm ref: ${uri}; use ${REF_TEMPLATE}` }))
        return Effect.zipRight(ensureFresh, show({ ref, level: "full", source: "agent" })).pipe(
          Effect.flatMap((item) => Effect.flatMap(Redactor, (redactor) => redactor.redact(item.content ?? ""))),
          Effect.map((text) => ({ contents: [{ uri, mimeType: "text/markdown", text }] })),
          Effect.catchAllCause((cause) =>
            Effect.flatMap(toolFailure(cause), (failure) => Effect.fail(new McpSchema.InvalidParams({ message: `${failure.message} (${failure.hint})` })))
          ),
          Effect.provide(services)
        )
      }
    })
  })
)
