import { Effect } from "effect"
import { UsageError, WorkspaceUnavailable } from "../../domain/Errors.js"
import type { WorkspacePaths } from "../../domain/Paths.js"
import type { Adapters } from "../../services/Adapters.js"

const inside = (child: string, parent: string): boolean => {
  const p = parent.endsWith("/") ? parent : `${parent}/`
  return child === parent || child.startsWith(p)
}

/** R-WS-1: workspace state never lives under a bundle root. */
export const refuseWorkspaceInside = (paths: WorkspacePaths, bundle: string, root: string) =>
  Effect.forEach(
    [["data", paths.dataDir], ["cache", paths.cacheDir]] as const,
    ([label, dir]) =>
      inside(dir, root)
        ? Effect.fail(new WorkspaceUnavailable({
          path: dir,
          reason: `the akm ${label} directory is inside bundle '${bundle}' (${root})`,
          hint: `choose a bundle folder that does not contain AKM_${label.toUpperCase()}_DIR`
        }))
        : Effect.void,
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
