import { Effect } from "effect"
import * as path from "node:path"
import { Conflict, UsageError } from "../../domain/Errors.js"
import { WorkspaceConfig } from "../../services/WorkspaceConfig.js"
import { resolveBundle } from "../scan.js"
import { shellCommand } from "../../domain/ShellQuote.js"

/** The project bundle a project command acts on. */
export interface ProjectTarget {
  readonly name: string
  /** Absolute root of the repository. */
  readonly root: string
}

export interface ProjectBundleInput {
  readonly bundle?: string | undefined
  /** Where the caller stands; default: the process's working directory. */
  readonly cwd?: string | undefined
}

const contains = (root: string, dir: string): boolean => {
  const relative = path.relative(root, dir)
  return relative === "" || (!relative.startsWith("..") && !path.isAbsolute(relative))
}

/**
 * `--bundle B`, else the project bundle whose root contains the current
 * directory (the deepest), else the only project bundle; otherwise a usage
 * error listing the candidates (exit 2).
 */
export const resolveProjectBundle = Effect.fn("ledger.projectBundle")(function* (input: ProjectBundleInput = {}) {
  if (input.bundle !== undefined) {
    const { info, adapter } = yield* resolveBundle(input.bundle)
    if (adapter.id !== "project") {
      return yield* new UsageError({ message: `bundle '${input.bundle}' is read by the ${adapter.id} adapter, not as a project`, hint: "pass a project bundle with --bundle, or make one with: akm init project" })
    }
    return { name: info.name, root: info.root } satisfies ProjectTarget as ProjectTarget
  }
  const workspace = yield* WorkspaceConfig
  const config = yield* workspace.read
  const lock = yield* workspace.readLock
  const projects: Array<ProjectTarget> = []
  for (const [name, bundle] of Object.entries(config.bundles)) {
    const locked = lock.bundles[name]
    const adapter = bundle.adapter ?? locked?.adapter.id
    const root = locked?.root ?? (bundle.source.kind === "filesystem" ? bundle.source.path : undefined)
    if (adapter === "project" && root !== undefined) projects.push({ name, root })
  }
  const cwd = input.cwd ?? process.cwd()
  const around = projects.filter((p) => contains(p.root, cwd)).sort((a, b) => b.root.length - a.root.length)
  if (around[0] !== undefined) return around[0]
  if (projects.length === 1) return projects[0]!
  if (projects.length === 0) {
    return yield* new UsageError({ message: "no project bundle is configured", hint: "run `akm init project` in the repository (or pass --bundle <name>)" })
  }
  return yield* new UsageError({
    message: `more than one project bundle, and none contains ${cwd}: ${projects.map((p) => p.name).join(", ")}`,
    hint: `pass one with --bundle, e.g. ${shellCommand("--bundle", projects[0]!.name)}, or run the command inside its repository`
  })
})

/** A project bundle must be writable for capture. */
export const refuseReadOnly = (name: string, writable: boolean) =>
  writable ? Effect.void : Effect.fail(new Conflict({ message: `project bundle '${name}' is read-only`, hint: `make it writable: ${shellCommand("akm config set", `bundles.${name}.writable`, "true")}` }))
