import { FileSystem } from "@effect/platform/FileSystem"
import { Clock, Effect, Either } from "effect"
import { posix } from "node:path"
import { Conflict, UsageError, WorkspaceUnavailable } from "../../domain/Errors.js"
import { expandUserPath } from "../../domain/Paths.js"
import { validateNewBundleName } from "../../domain/Ref.js"
import { Adapters } from "../../services/Adapters.js"
import { IndexStore } from "../../services/IndexStore.js"
import { recordEvent } from "../events.js"
import { WorkspaceConfig } from "../../services/WorkspaceConfig.js"
import { refuseWorkspaceInside } from "./checks.js"
import { bundleView } from "./view.js"

export interface BundleCreateInput {
  readonly name: string
  /** Folder for the new bundle; default $DATA/bundles/<name>. */
  readonly dir?: string | undefined
  readonly adapter?: string | undefined
  readonly setDefault: boolean
  readonly cwd: string
  readonly home: string
}

/**
 * `akm bundle create`: a new writable bundle in an empty (or new) folder. A new
 * empty bundle defaults to the `akm` adapter (spec 03 §1.2).
 */
export const bundleCreate = Effect.fn("bundle.create")(function* (input: BundleCreateInput) {
  const workspace = yield* WorkspaceConfig
  const adapters = yield* Adapters
  const fs = yield* FileSystem
  yield* Either.match(validateNewBundleName(input.name), {
    onLeft: (e) => Effect.fail(new UsageError({ message: `invalid bundle name '${input.name}': ${e.reason}`, hint: e.hint })),
    onRight: Effect.succeed
  })
  const adapterId = input.adapter ?? "akm"
  const adapter = adapters.get(adapterId)
  if (adapter === undefined) {
    return yield* new UsageError({ message: `unknown adapter '${adapterId}'`, hint: `known adapters: ${adapters.list.map((a) => a.id).join(", ")}` })
  }
  const config = yield* workspace.read
  if (config.bundles[input.name] !== undefined) {
    return yield* new Conflict({ message: `a bundle named '${input.name}' already exists`, hint: "choose another name" })
  }
  const dir = input.dir === undefined ? `${workspace.paths.bundlesDir}/${input.name}` : expandUserPath(input.dir, input.cwd, input.home)
  const failed = (cause: unknown) => new WorkspaceUnavailable({ path: dir, reason: String(cause), hint: "choose a folder you may write to" })
  // Refuse before anything is created: the workspace never lands inside a bundle (R-WS-1).
  if (input.dir !== undefined) yield* refuseWorkspaceInside(workspace.paths, input.name, posix.resolve(dir))
  yield* workspace.ensureDirs
  if (yield* fs.exists(dir).pipe(Effect.mapError(failed))) {
    const entries = yield* fs.readDirectory(dir).pipe(Effect.mapError(failed))
    if (entries.length > 0) {
      return yield* new Conflict({ message: `${dir} is not empty`, hint: "use `akm bundle add <folder>` to register an existing folder" })
    }
  }
  yield* fs.makeDirectory(dir, { recursive: true }).pipe(Effect.mapError(failed))
  const root = yield* fs.realPath(dir).pipe(Effect.mapError(failed))
  yield* refuseWorkspaceInside(workspace.paths, input.name, root)

  const setDefault = input.setDefault || config.defaultBundle === undefined
  const updated = yield* workspace.update((editor) => {
    editor.set(["bundles", input.name], { source: { kind: "filesystem", path: root }, adapter: adapter.id, writable: true })
    if (setDefault) editor.set(["defaultBundle"], input.name)
  })
  const now = new Date(yield* Clock.currentTimeMillis).toISOString()
  const lock = yield* workspace.updateLock((current) => ({
    ...current,
    bundles: {
      ...current.bundles,
      [input.name]: {
        source: { kind: "filesystem", locator: root },
        revision: null,
        root,
        adapter: { id: adapter.id, version: adapter.version },
        installedAt: now,
        updatedAt: now
      }
    }
  }))
  yield* recordEvent("bundle.created", input.name, { root, adapter: adapter.id })
  const counts = yield* (yield* IndexStore).counts
  return bundleView(input.name, updated.bundles[input.name]!, lock.bundles[input.name], counts[input.name] ?? 0, updated.defaultBundle)
})
