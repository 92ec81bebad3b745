import * as fs from "node:fs"
import * as path from "node:path"
import { Effect, Layer } from "effect"
import { AkmTest } from "../../src/layers/test/AkmTest.js"
import { discardCache, pruneCache, renameCache } from "../../src/layers/materializers/CacheSources.js"
import { Materializer, MaterializeFailed, type Materialized, type MaterializeDiagnostic, type MaterializeOptions } from "../../src/services/Materializer.js"
import { WorkspaceConfig } from "../../src/services/WorkspaceConfig.js"

/**
 * A scripted upstream for the bundle lifecycle programs: git sources are looked
 * up by URL in `upstream` (a revision and its files, or a failure); folders are
 * read in place like the real filesystem materializer. Cache bookkeeping uses
 * the real CacheSources helpers, so discard/prune/rename behave as in the live layer.
 */
export interface Upstream {
  revision: string
  files: Record<string, string>
  diagnostics?: ReadonlyArray<MaterializeDiagnostic>
  partial?: boolean
  /** The "revision" is a file, not a directory: indexing it fails. */
  brokenRoot?: boolean
}

export interface FakeRemote {
  readonly upstream: Map<string, Upstream | { readonly fail: string }>
  readonly calls: Array<{ readonly op: string; readonly bundle: string; readonly options?: MaterializeOptions; readonly keep?: string }>
}

export const makeRemote = (): FakeRemote => ({ upstream: new Map(), calls: [] })

const failed = (bundle: string, source: string, reason: string) => new MaterializeFailed({ bundle, source, reason, hint: "check the source" })

export const fakeMaterializer = (remote: FakeRemote) =>
  Layer.effect(
    Materializer,
    Effect.map(WorkspaceConfig, (workspace) => {
      const sources = workspace.paths.sourcesDir
      return Materializer.of({
        materialize: (bundle, source, options = {}) =>
          Effect.suspend((): Effect.Effect<Materialized, MaterializeFailed> => {
            remote.calls.push({ op: "materialize", bundle, options })
            if (source.kind === "filesystem") {
              if (!fs.existsSync(source.path)) return Effect.fail(failed(bundle, source.path, "the folder does not exist"))
              return Effect.succeed({ root: fs.realpathSync(source.path), revision: null, locator: source.path })
            }
            const key = source.kind === "git" ? source.url : source.kind === "npm" ? source.package : source.url
            const up = remote.upstream.get(key)
            if (up === undefined) return Effect.fail(failed(bundle, key, "no such upstream"))
            if ("fail" in up) return Effect.fail(failed(bundle, key, up.fail))
            const root = path.join(sources, bundle, up.revision)
            if (up.brokenRoot === true) {
              fs.mkdirSync(path.dirname(root), { recursive: true })
              fs.writeFileSync(root, "not a directory")
            } else if (!fs.existsSync(root) || options.force === true) {
              for (const [file, text] of Object.entries(up.files)) {
                fs.mkdirSync(path.dirname(path.join(root, file)), { recursive: true })
                fs.writeFileSync(path.join(root, file), text)
              }
            }
            return Effect.succeed({ root, revision: up.revision, locator: key, diagnostics: up.diagnostics, partial: up.partial })
          }),
        discard: (bundle) => Effect.sync(() => {
          remote.calls.push({ op: "discard", bundle })
          discardCache(sources, bundle)
        }),
        prune: (bundle, _source, keepRoot) => Effect.sync(() => {
          remote.calls.push({ op: "prune", bundle, keep: keepRoot })
          pruneCache(sources, bundle, keepRoot)
        }),
        rename: (from, to, source, root) => Effect.sync(() => {
          remote.calls.push({ op: "rename", bundle: from })
          return source.kind === "filesystem" ? root : renameCache(sources, from, to, root)
        })
      })
    })
  )

/** AkmTest with the scripted materializer in place of the live one. */
export const akmWithRemote = (remote: FakeRemote) => Layer.provideMerge(fakeMaterializer(remote), AkmTest)
