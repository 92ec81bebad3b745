import { Effect } from "effect"
import type { FileMeta, FileUnreadable, ItemPlan, ProjectResult, ValidateContext } from "../../../domain/Adapter.js"
import { secretKindOfPath } from "../../../domain/SecretFiles.js"
import { makeProjection } from "./Projection.js"

/** The link targets of a context's files, built once per context. */
const targetsByContext = new WeakMap<ValidateContext, ReadonlyMap<string, string>>()

const linkTargets = (ctx: ValidateContext): ReadonlyMap<string, string> => {
  let targets = targetsByContext.get(ctx)
  if (targets === undefined) {
    targets = new Map(ctx.files.flatMap((file: FileMeta) => (file.linkedTo === undefined ? [] : [[file.path, file.linkedTo] as const])))
    targetsByContext.set(ctx, targets)
  }
  return targets
}

/**
 * The file of an item that is a symbolic link to an env or secret file (by
 * name, or under a top-level `env/` or `secrets/` folder), unless the adapter
 * already treats the link's own path as one: such a link is that file, so its
 * bytes must not be read as knowledge (R-DB-2).
 */
const linkToSecret = (item: ItemPlan, ctx: ValidateContext, adapter: string): string | undefined => {
  // Asked per file when the context can: reading ctx.files makes the item depend on the whole listing (R-IDX-2).
  const targetOf = ctx.linkTarget ?? ((file: string) => linkTargets(ctx).get(file))
  return item.files.find((file) => {
    const target = targetOf(file)
    return target !== undefined && secretKindOfPath(target) !== undefined && secretKindOfPath(file, adapter) === undefined
  })
}

/** Wraps an adapter's project: an item reached through a link to a secret is a `secret` item, its name only, never read. */
export const guardSecretLinks = (
  adapter: string,
  project: (item: ItemPlan, ctx: ValidateContext) => Effect.Effect<ProjectResult, FileUnreadable>
) =>
  (item: ItemPlan, ctx: ValidateContext): Effect.Effect<ProjectResult, FileUnreadable> => {
    const link = linkToSecret(item, ctx, adapter)
    if (link === undefined) return project(item, ctx)
    return Effect.succeed({ projection: makeProjection({ type: "secret", name: link.slice(link.lastIndexOf("/") + 1) }), diagnostics: [] })
  }
