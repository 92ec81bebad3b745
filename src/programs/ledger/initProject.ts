import { FileSystem } from "@effect/platform/FileSystem"
import { Effect, Either } from "effect"
import * as path from "node:path"
import { Conflict, UsageError } from "../../domain/Errors.js"
import { STARTER_PROJECT_CONFIG } from "../../domain/ledger/index.js"
import { expandUserPath } from "../../domain/Paths.js"
import { validateNewBundleName } from "../../domain/Ref.js"
import { shellCommand } from "../../domain/ShellQuote.js"
import { WorkspaceConfig } from "../../services/WorkspaceConfig.js"
import { bundleAdd } from "../bundle/add.js"
import { proposeAndApply } from "../proposals/direct.js"
import { sha256Hex } from "../../domain/Proposal.js"
import { CONFIG_FILE, readProjectConfig } from "./store.js"

export interface InitProjectInput {
  readonly dir?: string | undefined
  readonly name?: string | undefined
  /** Allow a folder that is not a git work tree. */
  readonly noGit?: boolean | undefined
  readonly cwd: string
  readonly home: string
}

export interface InitProjectResult {
  readonly bundle: string
  readonly root: string
  /** The bundle was registered by this run. */
  readonly registered: boolean
  /** Files this run created (bundle-relative). */
  readonly created: ReadonlyArray<string>
  /** Scaffold files that were there already and were left alone. */
  readonly kept: ReadonlyArray<string>
  /** Nothing changed: the project was already set up. */
  readonly unchanged: boolean
  readonly proposal?: string
  readonly warnings: ReadonlyArray<string>
}

/** The default bundle name: the folder name lowercased, runs of characters outside [a-z0-9_-] as one `-`. */
export const projectBundleName = (dir: string): string =>
  path.basename(dir).toLowerCase().replace(/[^a-z0-9_-]+/g, "-").replace(/^[-_]+|[-_]+$/g, "") || "project"

const LEDGER_KEEP = ".ai/ledger/.gitkeep"
const CONTRACT = "context/router-contract.md"

/** The hand-written contract every router is generated from, with the sections later stages read. */
export const starterContract = (name: string): string => `# Router contract — ${name}

The one hand-written contract the agent router files (AGENTS.md, CLAUDE.md, …)
are generated from. Edit the text under each heading; keep the headings.

## Identity

${name}: what this system is and who uses it, in one paragraph. Its main
parts and how they fit together, in a second.

## Mandatory rules

1. When you hit a failure, record it once with \`akm ledger add failure\`, the symptom as first seen.
2. Before fixing a failure, search for it: \`akm search "<symptom>" --type failure\`.
3. Never write secrets into the ledger, rules or docs.

## Where to look

- \`rules/\` — rules, each with the scope it applies to
- \`docs/adr/\` — decisions and why they were made
- \`.ai/ledger/\` — failures, questions, decisions and surprises (\`akm ledger list\`)
- \`context/\` — this contract and the generated maps
`

const exists = (fs: FileSystem, file: string) => Effect.orElseSucceed(fs.exists(file), () => false)

/** The git work tree the folder belongs to, if any (its `.git` is a directory, or a file in a linked worktree). */
const gitRoot = (fs: FileSystem, dir: string) =>
  Effect.gen(function* () {
    for (let at = dir; ; at = path.dirname(at)) {
      if (yield* exists(fs, path.join(at, ".git"))) return at
      if (path.dirname(at) === at) return undefined
    }
  })

/**
 * `akm init project`: scaffolds `.ai/config.json`, `.ai/ledger/` and
 * `context/router-contract.md` and registers the repository as a writable
 * `project` bundle (spec 08). Idempotent: existing files are never
 * overwritten, and a second run changes nothing and says so.
 */
export const initProject = Effect.fn("init.project")(function* (input: InitProjectInput) {
  const fs = yield* FileSystem
  const workspace = yield* WorkspaceConfig
  const root = path.resolve(expandUserPath(input.dir ?? ".", input.cwd, input.home))
  const info = yield* Effect.option(fs.stat(root))
  if (info._tag === "None" || info.value.type !== "Directory") return yield* new UsageError({ message: `${root} is not a folder`, hint: "pass the repository's folder with --dir" })
  const real = yield* Effect.orElseSucceed(fs.realPath(root), () => root)
  if (input.noGit !== true) {
    const repo = yield* gitRoot(fs, real)
    if (repo === undefined) return yield* new UsageError({ message: `${root} is not a git work tree`, hint: "run it in a repository (git init first), or pass --no-git to set up a plain folder" })
    if (repo !== real) return yield* new UsageError({ message: `${root} is inside the git work tree ${repo}, not its root`, hint: `run it at the repository root: ${shellCommand("akm init project --dir", repo)} (or pass --no-git for this folder)` })
  }
  // A broken .ai/config.json stops the run before anything is written.
  const { warnings } = yield* readProjectConfig(real)

  const config = yield* workspace.read
  const lock = yield* workspace.readLock
  const rootOf = (name: string) => lock.bundles[name]?.root ?? (config.bundles[name]?.source.kind === "filesystem" ? (config.bundles[name]!.source as { path: string }).path : undefined)
  const already = Object.keys(config.bundles).find((name) => rootOf(name) === real || rootOf(name) === root)
  let name: string
  let registered = false
  if (already !== undefined) {
    const adapter = config.bundles[already]!.adapter ?? lock.bundles[already]?.adapter.id
    if (adapter !== "project") {
      return yield* new Conflict({ message: `${root} is already bundle '${already}', read by the ${adapter ?? "detected"} adapter`, hint: `remove it first (${shellCommand("akm bundle remove", already)}), then run akm init project again` })
    }
    if (input.name !== undefined && input.name !== already) return yield* new Conflict({ message: `${root} is already the project bundle '${already}'`, hint: `rename it with ${shellCommand("akm bundle rename", already, input.name)}` })
    name = already
  } else {
    name = input.name ?? projectBundleName(real)
    yield* Either.match(validateNewBundleName(name), { onLeft: Effect.fail, onRight: Effect.succeed })
    if (config.bundles[name] !== undefined) return yield* new Conflict({ message: `bundle name '${name}' is taken by another folder`, hint: "choose another with --name" })
  }

  // The files go in through one proposal after the bundle exists; a file already there is never overwritten.
  const wanted: ReadonlyArray<readonly [string, string]> = [
    [CONFIG_FILE, `${JSON.stringify(STARTER_PROJECT_CONFIG, null, 2)}\n`],
    [LEDGER_KEEP, ""],
    [CONTRACT, starterContract(name)]
  ]
  const kept: Array<string> = []
  const missing: Array<readonly [string, string]> = []
  for (const [file, text] of wanted) {
    const present = file === LEDGER_KEEP ? yield* exists(fs, path.join(real, ".ai/ledger")) : yield* exists(fs, path.join(real, file))
    if (present) kept.push(file)
    else missing.push([file, text])
  }
  if (already === undefined) {
    yield* bundleAdd({ source: real, name, adapter: "project", writable: true, cwd: input.cwd, home: input.home })
    registered = true
  }
  let proposal: string | undefined
  if (missing.length > 0) {
    const made = yield* proposeAndApply({
      title: `Set up project knowledge in ${name}`,
      recipe: "init-project",
      changeClass: "mechanical",
      changes: missing.map(([file, text]) => ({ bundle: name, path: file, beforeHash: null, after: text })),
      evidence: [{ kind: "user", id: "init-project", hash: sha256Hex(missing.map(([file]) => file)) }],
      bundle: name,
      root: real
    })
    proposal = made.id
  }
  return {
    bundle: name,
    root: real,
    registered,
    created: missing.map(([file]) => file),
    kept,
    unchanged: !registered && missing.length === 0,
    ...(proposal === undefined ? {} : { proposal }),
    warnings
  } satisfies InitProjectResult as InitProjectResult
})
