import { Clock, Effect, Either, Schema } from "effect"
import { Interval, isReadOnlyKind, type BundleConfig, type BundleSource } from "../../domain/Config.js"
import { Conflict, UsageError } from "../../domain/Errors.js"
import { expandUserPath } from "../../domain/Paths.js"
import { validateNewBundleName } from "../../domain/Ref.js"
import { defaultBundleName, parseSource } from "../../domain/Source.js"
import { Adapters, type DetectionDoubt } from "../../services/Adapters.js"
import { IndexStore } from "../../services/IndexStore.js"
import { Materializer, type MaterializeDiagnostic } from "../../services/Materializer.js"
import { Progress } from "../../services/Progress.js"
import { recordEvent } from "../events.js"
import { WorkspaceConfig } from "../../services/WorkspaceConfig.js"
import { indexBundles } from "../indexBundles.js"
import { bundleView, type BundleView } from "./view.js"
import { resolveAdapter, refuseWorkspaceInside } from "./checks.js"
import { lockEntry, reportDiagnostics } from "./lockEntry.js"
import { shellCommand } from "../../domain/ShellQuote.js"

export interface BundleAddInput {
  readonly source: string
  readonly name?: string | undefined
  readonly adapter?: string | undefined
  readonly writable?: boolean | undefined
  readonly website?: boolean | undefined
  readonly git?: boolean | undefined
  readonly ref?: string | undefined
  /** Allow a website over plain http (R-WEB-1). */
  readonly allowInsecure?: boolean | undefined
  /** `refresh:` interval recorded in config.yaml ("12h"); `bundle update --due` uses it. */
  readonly refresh?: string | undefined
  /** The directory relative local paths are resolved against (the caller's cwd). */
  readonly cwd: string
  readonly home: string
}

/** `bundle add` prints the bundle object plus what the materializer skipped or noticed. */
export interface BundleAddResult extends BundleView {
  readonly warnings: ReadonlyArray<MaterializeDiagnostic>
  /** Present when the detected adapter is a guess the files cast doubt on: why, and what to run instead. */
  readonly detection?: { readonly unsure: true; readonly reason: string; readonly suggestions: ReadonlyArray<string> }
}

/** The doubt of an unsure detection as commands to copy (filesystem sources: the nested folders as bundles). */
const detectionOf = (doubt: DetectionDoubt | undefined, source: BundleSource, given: string): BundleAddResult["detection"] =>
  doubt === undefined
    ? undefined
    : {
      unsure: true,
      reason: doubt.reason,
      suggestions: source.kind === "filesystem"
        ? doubt.folders.map((folder) => `${shellCommand("akm bundle add", `${given.replace(/\/+$/, "")}/${folder}`)} --adapter ${doubt.adapter}`)
        : []
    }

const isInterval = Schema.is(Interval)

/** A local path given with --git is made absolute here: config.yaml must not depend on the caller's cwd. */
const absoluteSource = (source: BundleSource, input: BundleAddInput): BundleSource => {
  if (source.kind === "filesystem") return { ...source, path: expandUserPath(source.path, input.cwd, input.home) }
  if (source.kind === "git" && !/^[a-z][a-z0-9+.-]*:/i.test(source.url)) return { ...source, url: expandUserPath(source.url, input.cwd, input.home) }
  return source
}

/**
 * `akm bundle add`: materialize → choose the adapter (explicit, else probes)
 * → record config and lock → index → print the bundle (spec 02 §1). The
 * adapter chosen here is persisted and never re-guessed (R-WS-7). Nothing from
 * the bundle runs (R-BUN-1). When a step after materializing fails, the cache
 * copy made for it is discarded — a user's own folder never is.
 */
export const bundleAdd = Effect.fn("bundle.add")(function* (input: BundleAddInput) {
  const workspace = yield* WorkspaceConfig
  const materializer = yield* Materializer
  const adapters = yield* Adapters
  const progress = yield* Progress

  const parsed = yield* Either.match(parseSource(input.source, input), { onLeft: Effect.fail, onRight: Effect.succeed })
  const source = absoluteSource(parsed, input)
  const name = input.name ?? defaultBundleName(source)
  yield* Either.match(validateNewBundleName(name), {
    onLeft: (e) => Effect.fail(new UsageError({ message: `invalid bundle name '${name}': ${e.reason}`, hint: input.name === undefined ? "choose a name with --name" : e.hint })),
    onRight: Effect.succeed
  })
  if (input.writable === true && isReadOnlyKind(source.kind)) {
    return yield* new UsageError({
      message: `${source.kind} bundles are read-only copies and cannot be writable`,
      hint: source.kind === "website" ? "drop --writable; export pages into a writable bundle instead" : "drop --writable; to change its files, copy them into a writable bundle"
    })
  }
  if (input.writable === true && source.kind === "git") {
    // Allowed by the config schema, but a cache copy is replaced by every update: edits to it would be lost.
    return yield* new UsageError({
      message: "a git bundle is a read-only copy of a commit and cannot be writable",
      hint: "to let akm change files in your checkout, add the folder itself (without --git): it is used in place and writable"
    })
  }
  if (input.refresh !== undefined && !isInterval(input.refresh)) {
    return yield* new UsageError({ message: `invalid --refresh '${input.refresh}'`, hint: "an interval looks like 30m, 12h, 7d or 2w" })
  }

  const taken = (config: { readonly bundles: Readonly<Record<string, unknown>> }) =>
    config.bundles[name] === undefined
      ? Effect.void
      : Effect.fail(new Conflict({ message: `a bundle named '${name}' already exists`, hint: "choose another name with --name, or `akm bundle remove` the old one" }))
  const config = yield* workspace.read
  yield* taken(config)

  yield* progress.update(`materialize ${name}`, 0)
  const materialized = yield* materializer.materialize(name, source)
  yield* progress.done(`materialize ${name}`, materialized.revision === null ? "done" : materialized.revision)
  yield* reportDiagnostics(progress, name, materialized.diagnostics)

  const install = Effect.gen(function* () {
    // Before any directory is created: workspace state never lands inside a bundle (R-WS-1).
    yield* refuseWorkspaceInside(workspace.paths, name, materialized.root, { cached: source.kind !== "filesystem" })
    if (source.kind === "filesystem") {
      const lock = yield* workspace.readLock
      const twin = Object.entries(lock.bundles).find(([, entry]) => entry.source.kind === "filesystem" && entry.root === materialized.root)
      if (twin !== undefined) {
        return yield* new Conflict({ message: `${materialized.root} is already bundle '${twin[0]}'`, hint: `use the existing bundle, or \`${shellCommand("akm bundle remove", twin[0])}\` first` })
      }
    }
    yield* workspace.ensureDirs
    const adapter = yield* resolveAdapter(adapters, input.adapter, materialized.root)
    // Materializing can take minutes: another `bundle add` may have taken the name meanwhile.
    yield* taken(yield* workspace.read)

    const entry: BundleConfig = {
      source,
      adapter: adapter.id,
      ...(input.writable === undefined ? {} : { writable: input.writable }),
      ...(input.refresh === undefined ? {} : { refresh: input.refresh })
    }
    const becomesDefault = config.defaultBundle === undefined && (input.writable ?? source.kind === "filesystem")
    const updated = yield* workspace.update((editor) => {
      editor.set(["bundles", name], entry)
      if (becomesDefault) editor.set(["defaultBundle"], name)
    })
    const now = new Date(yield* Clock.currentTimeMillis).toISOString()
    const lock = yield* workspace.updateLock((current) => ({
      ...current,
      bundles: { ...current.bundles, [name]: lockEntry(source, materialized, { id: adapter.id, version: adapter.version }, now, now) }
    })).pipe(
      // Without its lock entry the bundle is not installed: take the config entry back too.
      Effect.tapError(() =>
        workspace.update((editor) => {
          editor.delete(["bundles", name])
          if (becomesDefault) editor.delete(["defaultBundle"])
        }).pipe(Effect.ignore))
    )
    return { updated, lock, adapter }
  })
  const { updated, lock, adapter } = yield* install.pipe(
    Effect.onError(() => (source.kind === "filesystem" ? Effect.void : materializer.discard(name, source).pipe(Effect.ignore)))
  )

  yield* recordEvent("bundle.added", name, { source: materialized.locator, adapter: adapter.id, revision: materialized.revision })
  // Indexed right away, so the new bundle is searchable at once (spec 02 §1).
  yield* indexBundles({ bundle: name })
  const state = (yield* (yield* IndexStore).bundles).find((s) => s.bundle === name)
  const detection = detectionOf("doubt" in adapter ? adapter.doubt : undefined, source, input.source)
  return {
    ...bundleView(name, updated.bundles[name]!, lock.bundles[name], state?.items ?? 0, updated.defaultBundle, state),
    warnings: materialized.diagnostics ?? [],
    ...(detection === undefined ? {} : { detection })
  } satisfies BundleAddResult
})
