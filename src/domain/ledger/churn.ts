import { normaliseModule } from "./Fingerprint.js"

/**
 * Churn from the history `ledger mine-git` walks (spec 08 R-LED-4): how often
 * files and recorded modules changed in the window, and the hotspots — a file
 * touched by ≥ 3 commits within 14 days is repeated churn, a failure signal
 * even without a fix commit.
 */

export interface TouchingCommit {
  readonly sha: string
  /** Committer time, epoch milliseconds. */
  readonly time: number
  /** Repository-relative paths it changed against its first parent (none for a merge). */
  readonly paths: ReadonlyArray<string>
}

const DAY = 86_400_000

/** A module as a path prefix: trimmed, lowercased, `\` → `/`, no leading `./` or `/`, no trailing `/`. */
export const modulePrefix = (module: string): string => normaliseModule(module).replace(/^(?:\.\/)+/, "").replace(/^\/+/, "")

/** Whether `path` is the module or lies under it (whole segments: `src/db` never covers `src/dbx`). */
export const isUnderModule = (path: string, module: string): boolean => {
  const prefix = modulePrefix(module)
  if (prefix === "" || prefix === ".") return false
  const lower = path.toLowerCase()
  return lower === prefix || lower.startsWith(`${prefix}/`)
}

export interface Hotspot {
  readonly path: string
  /** The most commits touching it inside any one window. */
  readonly commits: number
  /** Epoch milliseconds of the first and last commit of that window. */
  readonly from: number
  readonly to: number
}

export const HOTSPOT_MIN_COMMITS = 3
export const HOTSPOT_WINDOW_DAYS = 14

/** Files with ≥ `minCommits` commits inside some `windowDays`-day window, most commits first, then by path. */
export const hotspots = (commits: ReadonlyArray<TouchingCommit>, minCommits = HOTSPOT_MIN_COMMITS, windowDays = HOTSPOT_WINDOW_DAYS): ReadonlyArray<Hotspot> => {
  const times = new Map<string, Array<number>>()
  for (const commit of commits) for (const path of new Set(commit.paths)) times.set(path, [...(times.get(path) ?? []), commit.time])
  const found: Array<Hotspot> = []
  for (const [path, list] of times) {
    const sorted = [...list].sort((a, b) => a - b)
    let best: Hotspot | undefined
    let start = 0
    for (let end = 0; end < sorted.length; end++) {
      while (sorted[end]! - sorted[start]! > windowDays * DAY) start++
      const count = end - start + 1
      if (count >= minCommits && (best === undefined || count > best.commits)) best = { path, commits: count, from: sorted[start]!, to: sorted[end]! }
    }
    if (best !== undefined) found.push(best)
  }
  return found.sort((a, b) => b.commits - a.commits || a.path.localeCompare(b.path))
}

export interface ModuleChurn {
  readonly module: string
  /** Commits touching a file under the module. */
  readonly commits: number
  /** Distinct files under the module those commits touched. */
  readonly files: number
}

/** Churn per module, in the order given (each module once, compared as a path prefix). */
export const moduleChurn = (commits: ReadonlyArray<TouchingCommit>, modules: ReadonlyArray<string>): ReadonlyArray<ModuleChurn> => {
  const seen = new Set<string>()
  const result: Array<ModuleChurn> = []
  for (const module of modules) {
    const key = modulePrefix(module)
    if (key === "" || seen.has(key)) continue
    seen.add(key)
    const files = new Set<string>()
    let count = 0
    for (const commit of commits) {
      const under = commit.paths.filter((path) => isUnderModule(path, module))
      if (under.length === 0) continue
      count++
      for (const path of under) files.add(path)
    }
    result.push({ module: module.trim(), commits: count, files: files.size })
  }
  return result
}
