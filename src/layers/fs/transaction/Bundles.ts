import * as fs from "node:fs"
import { Effect } from "effect"
import type { BundleAdapter } from "../../../domain/Adapter.js"
import { isWritable } from "../../../domain/Config.js"
import { WorkspaceUnavailable } from "../../../domain/Errors.js"
import type { Adapters } from "../../../services/Adapters.js"
import { TransactionRefused } from "../../../services/Transaction.js"
import type { WorkspaceConfig } from "../../../services/WorkspaceConfig.js"
import { shellCommand } from "../../../domain/ShellQuote.js"

/** A bundle as the engine writes it: its real root, whether it may be written, its adapter, whether it commits to git. */
export interface TargetBundle {
  readonly name: string
  /** realpath of the bundle root. */
  readonly root: string
  readonly writable: boolean
  readonly adapter: BundleAdapter
  readonly gitCommit: boolean
}

export type BundleResolver = (name: string) => Effect.Effect<TargetBundle, TransactionRefused | WorkspaceUnavailable>

const configured = (name: string, reason: string, hint: string) => new TransactionRefused({ path: name, reason, hint })

/**
 * Resolves bundle names through config.yaml and akm.lock the way scanning
 * does (the lock's root, else the filesystem source's path; the configured or
 * locked adapter, else detection).
 */
const unreadable = (workspace: WorkspaceConfig["Type"]) => (cause: { readonly message: string }) =>
  new WorkspaceUnavailable({ path: workspace.paths.configFile, reason: cause.message, hint: "fix the configuration, then rerun" })

/** A configured bundle's entries in config.yaml and akm.lock and its real root. */
const configuredBundle = (workspace: WorkspaceConfig["Type"], name: string) =>
  Effect.gen(function* () {
    const config = yield* Effect.mapError(workspace.read, unreadable(workspace))
    const bundle = config.bundles[name]
    if (bundle === undefined) return yield* configured(name, `bundle '${name}' is not configured`, "add it with `akm bundle add`, or name a configured bundle")
    const locked = (yield* Effect.mapError(workspace.readLock, unreadable(workspace))).bundles[name]
    const root = locked?.root ?? (bundle.source.kind === "filesystem" ? bundle.source.path : undefined)
    if (root === undefined) return yield* configured(name, `bundle '${name}' is not installed (no entry in akm.lock)`, `add it again with \`${shellCommand("akm bundle remove", name)}\` and \`akm bundle add\``)
    const realRoot = yield* Effect.try({
      try: () => fs.realpathSync(root),
      catch: () => new WorkspaceUnavailable({ path: root, reason: `the root of bundle '${name}' does not exist`, hint: "restore the directory or remove the bundle" })
    })
    return { bundle, locked, realRoot }
  })

/**
 * Resolves bundle names through config.yaml and akm.lock the way scanning
 * does (the lock's root, else the filesystem source's path; the configured or
 * locked adapter, else detection).
 */
export const workspaceBundles = (workspace: WorkspaceConfig["Type"], adapters: Adapters["Type"]): BundleResolver => (name) =>
  Effect.gen(function* () {
    const { bundle, locked, realRoot } = yield* configuredBundle(workspace, name)
    const id = bundle.adapter ?? locked?.adapter.id ?? (yield* adapters.detect(realRoot)).id
    const adapter = adapters.adapter(id)
    if (adapter === undefined) return yield* configured(name, `bundle '${name}' uses the unknown adapter '${id}'`, `known adapters: ${adapters.list.map((a) => a.id).join(", ")}`)
    return { name, root: realRoot, writable: isWritable(bundle), adapter, gitCommit: bundle.git?.commit === true }
  })

/**
 * The real roots of the bundles that still resolve, by the same rule without
 * the adapter (the journal check of `akm health` locates files only).
 */
export const workspaceRoots = (workspace: WorkspaceConfig["Type"]) => (names: ReadonlyArray<string>) =>
  Effect.gen(function* () {
    const roots = new Map<string, string>()
    for (const name of names) {
      const found = yield* Effect.either(configuredBundle(workspace, name))
      if (found._tag === "Right") roots.set(name, found.right.realRoot)
    }
    return roots as ReadonlyMap<string, string>
  })
