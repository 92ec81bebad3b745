import { Effect, Either } from "effect"
import { isReadOnlyKind, type BundleConfig, type BundleSource } from "../../domain/Config.js"
import { Conflict, UsageError } from "../../domain/Errors.js"
import { expandUserPath } from "../../domain/Paths.js"
import { validateBundleName } from "../../domain/Ref.js"
import { defaultBundleName, parseSource } from "../../domain/Source.js"
import { Adapters } from "../../services/Adapters.js"
import { IndexStore } from "../../services/IndexStore.js"
import { Materializer } from "../../services/Materializer.js"
import { Progress } from "../../services/Progress.js"
import { StateStore } from "../../services/StateStore.js"
import { WorkspaceConfig } from "../../services/WorkspaceConfig.js"
import { indexBundles } from "../indexBundles.js"
import { bundleView } from "./view.js"
import { resolveAdapter, refuseWorkspaceInside } from "./checks.js"

export interface BundleAddInput {
  readonly source: string
  readonly name?: string | undefined
  readonly adapter?: string | undefined
  readonly writable?: boolean | undefined
  readonly website?: boolean | undefined
  readonly git?: boolean | undefined
  readonly ref?: string | undefined
  /** The directory relative local paths are resolved against (the caller's cwd). */
  readonly cwd: string
  readonly home: string
}

/**
 * `akm bundle add`: materialize → choose the adapter (explicit, else probes)
 * → record config and lock → print the bundle (spec 02 §1). The adapter chosen
 * here is persisted and never re-guessed (R-WS-7).
 */
export const bundleAdd = Effect.fn("bundle.add")(function* (input: BundleAddInput) {
  const workspace = yield* WorkspaceConfig
  const materializer = yield* Materializer
  const adapters = yield* Adapters
  const progress = yield* Progress

  const parsed = yield* Either.match(parseSource(input.source, input), { onLeft: Effect.fail, onRight: Effect.succeed })
  const source: BundleSource = parsed.kind === "filesystem" ? { kind: "filesystem", path: expandUserPath(parsed.path, input.cwd, input.home) } : parsed
  const name = input.name ?? defaultBundleName(source)
  yield* Either.match(validateBundleName(name), {
    onLeft: (e) => Effect.fail(new UsageError({ message: `invalid bundle name '${name}': ${e.reason}`, hint: input.name === undefined ? "choose a name with --name" : e.hint })),
    onRight: Effect.succeed
  })
  if (input.writable === true && isReadOnlyKind(source.kind)) {
    return yield* new UsageError({
      message: `${source.kind} bundles are read-only copies and cannot be writable (R-WS-6)`,
      hint: source.kind === "website" ? "drop --writable; export pages into a writable bundle instead" : "drop --writable; to change its files, copy them into a writable bundle"
    })
  }

  const config = yield* workspace.read
  if (config.bundles[name] !== undefined) {
    return yield* new Conflict({ message: `a bundle named '${name}' already exists`, hint: "choose another name with --name, or `akm bundle remove` the old one" })
  }

  yield* progress.update(`materialize ${name}`, 0)
  const materialized = yield* materializer.materialize(name, source)
  yield* progress.done(`materialize ${name}`, "done")
  // Before any directory is created: workspace state never lands inside a bundle (R-WS-1).
  yield* refuseWorkspaceInside(workspace.paths, name, materialized.root)
  if (source.kind === "filesystem") {
    const lock = yield* workspace.readLock
    const twin = Object.entries(lock.bundles).find(([, entry]) => entry.source.kind === "filesystem" && entry.root === materialized.root)
    if (twin !== undefined) {
      return yield* new Conflict({ message: `${materialized.root} is already bundle '${twin[0]}'`, hint: `use the existing bundle, or \`akm bundle remove ${twin[0]}\` first` })
    }
  }
  yield* workspace.ensureDirs
  const adapter = yield* resolveAdapter(adapters, input.adapter, materialized.root)

  const entry: BundleConfig = {
    source,
    adapter: adapter.id,
    ...(input.writable === undefined ? {} : { writable: input.writable })
  }
  const becomesDefault = config.defaultBundle === undefined && (input.writable ?? source.kind === "filesystem")
  const updated = yield* workspace.update((editor) => {
    editor.set(["bundles", name], entry)
    if (becomesDefault) editor.set(["defaultBundle"], name)
  })
  const now = new Date().toISOString()
  const lock = yield* workspace.updateLock((current) => ({
    ...current,
    bundles: {
      ...current.bundles,
      [name]: {
        source: { kind: source.kind, locator: materialized.locator },
        revision: materialized.revision,
        ...(materialized.integrity === undefined ? {} : { integrity: materialized.integrity }),
        root: materialized.root,
        adapter: { id: adapter.id, version: adapter.version },
        installedAt: now,
        updatedAt: now
      }
    }
  }))
  yield* (yield* StateStore).appendEvent("bundle.added", name, { source: materialized.locator, adapter: adapter.id })
  // Indexed right away, so the new bundle is searchable at once (spec 02 §1).
  yield* indexBundles({ bundle: name })
  const counts = yield* (yield* IndexStore).counts
  return bundleView(name, updated.bundles[name]!, lock.bundles[name], counts[name] ?? 0, updated.defaultBundle)
})
