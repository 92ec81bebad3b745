import * as path from "node:path"
import { Effect, Layer } from "effect"
import type { BundleSource, SourceKind } from "../../domain/Config.js"
import { Materializer, MaterializeFailed } from "../../services/Materializer.js"
import { Progress } from "../../services/Progress.js"
import { WorkspaceConfig } from "../../services/WorkspaceConfig.js"
import { discardCache, pruneCache, renameCache } from "./CacheSources.js"
import { makeFilesystemMaterializer } from "./MaterializerFilesystem.js"
import { makeGitMaterializer } from "./MaterializerGit.js"
import { makeNpmMaterializer } from "./MaterializerNpm.js"
import { makeWebsiteMaterializer } from "./MaterializerWebsite.js"
import type { MaterializerContext, SourceMaterializer } from "./SourceMaterializer.js"

const cacheFailure = (bundle: string, source: BundleSource, action: string) => (cause: unknown) =>
  new MaterializeFailed({ bundle, source: source.kind, reason: `${action} the cache copy failed: ${String((cause as Error)?.message ?? cause)}`, hint: "check the permissions of the akm cache folder (akm info shows it)" })

/**
 * The Materializer service: one implementation per source kind (spec 02 §2),
 * routed by `source.kind`. Cache bookkeeping (discard, prune, rename) is the
 * same for every fetched kind, so it lives here once.
 */
export const MaterializerLive = Layer.effect(
  Materializer,
  Effect.gen(function* () {
    const workspace = yield* WorkspaceConfig
    const progress = yield* Progress
    const ctx: MaterializerContext = {
      sourcesDir: workspace.paths.sourcesDir,
      configDir: path.dirname(workspace.paths.configFile),
      progress: progress.update,
      progressDone: progress.done,
      config: workspace.read
    }
    const kinds: { readonly [K in SourceKind]: SourceMaterializer<K> } = {
      filesystem: makeFilesystemMaterializer(ctx),
      git: makeGitMaterializer(ctx),
      npm: makeNpmMaterializer(ctx),
      website: makeWebsiteMaterializer(ctx)
    }
    const cached = (source: BundleSource) => kinds[source.kind].cached
    return Materializer.of({
      materialize: (bundle, source, options = {}) =>
        (kinds[source.kind] as SourceMaterializer<typeof source.kind>).materialize(bundle, source as never, options),
      discard: (bundle, source) =>
        cached(source) ? Effect.try({ try: () => discardCache(ctx.sourcesDir, bundle), catch: cacheFailure(bundle, source, "removing") }) : Effect.void,
      prune: (bundle, source, keepRoot) =>
        cached(source) ? Effect.try({ try: () => pruneCache(ctx.sourcesDir, bundle, keepRoot, [".git-cache"]), catch: cacheFailure(bundle, source, "pruning") }) : Effect.void,
      rename: (from, to, source, root) =>
        cached(source) ? Effect.try({ try: () => renameCache(ctx.sourcesDir, from, to, root), catch: cacheFailure(from, source, "renaming") }) : Effect.succeed(root)
    })
  })
)
