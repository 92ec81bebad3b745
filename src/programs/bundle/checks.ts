import { FileSystem } from "@effect/platform/FileSystem"
import { Effect } from "effect"
import { posix } from "node:path"
import { UsageError, WorkspaceUnavailable } from "../../domain/Errors.js"
import type { WorkspacePaths } from "../../domain/Paths.js"
import type { Adapters } from "../../services/Adapters.js"

const inside = (child: string, parent: string): boolean => {
  const p = parent.endsWith("/") ? parent : `${parent}/`
  return child === parent || child.startsWith(p)
}

/** The realpath of `path`, resolved through its nearest existing ancestor (workspace dirs may not exist yet). */
const canonicalPath = (path: string) =>
  Effect.gen(function* () {
    const fs = yield* FileSystem
    const parts = posix.resolve(path).split("/")
    for (let cut = parts.length; cut > 0; cut--) {
      const head = parts.slice(0, cut).join("/") || "/"
      const real = yield* fs.realPath(head).pipe(Effect.option)
      if (real._tag === "Some") return posix.join(real.value, ...parts.slice(cut))
    }
    return path
  })

/**
 * R-WS-1: workspace state and bundles never overlap. A root may not be or
 * contain the config, data or cache dir, nor lie inside one of them — except
 * under $AKM_DATA_DIR/bundles/<name>/, where `bundle create` puts bundles, and
 * (for `cached` roots: git, npm and website copies) under the cache's
 * sources/. `root` is a realpath, so the workspace dirs are compared as
 * realpaths too: a symlinked temp or data dir cannot slip past.
 */
export const refuseWorkspaceInside = (paths: WorkspacePaths, bundle: string, root: string, options: { readonly cached?: boolean } = {}) =>
  Effect.forEach(
    [["config", paths.configDir], ["data", paths.dataDir], ["cache", paths.cacheDir]] as const,
    ([label, dir]) =>
      Effect.gen(function* () {
        const real = yield* canonicalPath(dir)
        const variable = `AKM_${label.toUpperCase()}_DIR`
        if (inside(real, root) || inside(dir, root)) {
          return yield* new WorkspaceUnavailable({
            path: dir,
            reason: `the akm ${label} directory is inside bundle '${bundle}' (${root})`,
            hint: `choose a bundle folder that does not contain ${variable}`
          })
        }
        if (!inside(root, real) && !inside(root, dir)) return
        if (label === "data") {
          const bundles = posix.join(real, "bundles")
          if (root !== bundles && inside(root, bundles)) return
        }
        if (label === "cache" && options.cached === true) return
        return yield* new WorkspaceUnavailable({
          path: root,
          reason: `bundle '${bundle}' (${root}) lies inside the akm ${label} directory (${dir})`,
          hint: label === "data" ? "choose a folder outside it, or make the bundle with `akm bundle create <name>` (it goes under its bundles/)" : `choose a bundle folder outside ${variable}`
        })
      }),
    { discard: true }
  )

/** An explicit adapter always wins (and must exist); otherwise the probes choose (R-WS-7). */
export const resolveAdapter = (adapters: Adapters["Type"], explicit: string | undefined, root: string) => {
  if (explicit === undefined) return adapters.detect(root)
  const found = adapters.get(explicit)
  return found === undefined
    ? Effect.fail(new UsageError({ message: `unknown adapter '${explicit}'`, hint: `known adapters: ${adapters.list.map((a) => a.id).join(", ")}` }))
    : Effect.succeed(found)
}
