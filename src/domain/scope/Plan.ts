import { isManifest } from "../project/Maps.js"
import { scopeMatcher } from "../project/Globs.js"

/**
 * Change-scoping (spec 08 §7, R-SCP-2): each station declares its inputs; a
 * station has work only when one of them changed. Pure: the caller brings
 * the working-tree changes, the paths the brief shows, and what the ledger
 * and git say. "Everything" means every station, not every file.
 */

export type Station = "CAPTURE" | "DISTIL" | "HARDEN" | "PROJECT" | "SURFACE"

export const STATIONS: ReadonlyArray<Station> = ["CAPTURE", "DISTIL", "HARDEN", "PROJECT", "SURFACE"]

export interface Change {
  readonly path: string
  readonly status: "added" | "modified" | "deleted" | "untracked"
}

export interface ScopeInput {
  readonly changes: ReadonlyArray<Change>
  /** `.ai/config.json` scope.ignore globs: changes there are not inputs of any station. */
  readonly ignore: ReadonlyArray<string>
  /** Paths of items in the brief (index.json `in_brief: true`). */
  readonly briefed: ReadonlySet<string>
  /** Commits since CAPTURE last mined the history. */
  readonly newCommits: number
  /** Failure record ids some rule lists in `caused` (a change to one is HARDEN's input). */
  readonly linkedFailures: ReadonlySet<string>
  /** Changes committed since a station's last run: its inputs too, though HEAD now holds them. */
  readonly committed?: Partial<Record<Station, ReadonlyArray<Change>>>
  /** True when a station's last run already saw this change with the same bytes: no new work. */
  readonly seen?: (station: Station, change: Change) => boolean
}

export interface StationPlan {
  readonly station: Station
  readonly work: boolean
  /** Why it has work: the inputs that changed (at most a few named, then a count). */
  readonly reasons: ReadonlyArray<string>
}

const LEDGER = /^\.ai\/ledger\//
const CORPUS = /^(docs|memory|context|rules)\/.*\.md$|^\.ai\/ledger\/[^/]+\/[^/]+\.md$/
const CONTRACT = "context/router-contract.md"
const GENERATED = new Set([".ai/BRIEF.md", ".ai/index.json"])

/** A component's README: `README.md` one or two folders down, outside docs/. */
const isComponentReadme = (p: string): boolean => /^(?!docs\/)[^/]+\/(?:[^/]+\/)?README\.md$/i.test(p)

const ledgerId = (p: string): string | undefined => /^\.ai\/ledger\/failure\/([^/]+)\.md$/.exec(p)?.[1]

/** Each station's inputs, as a test of one changed path: the reason it is an input, or undefined. */
const INPUTS: Readonly<Record<Station, (c: Change, input: ScopeInput) => string | undefined>> = {
  CAPTURE: (c) => (LEDGER.test(c.path) ? "the ledger changed" : undefined),
  DISTIL: (c) => (/^\.ai\/ledger\/failure\//.test(c.path) ? "a failure record changed (a new occurrence or a new failure)" : undefined),
  HARDEN: (c, input) => {
    if (/^rules\//.test(c.path)) return "a rule changed"
    const id = ledgerId(c.path)
    return id !== undefined && input.linkedFailures.has(id) ? "a failure a rule caused changed" : undefined
  },
  PROJECT: (c) =>
    c.path === CONTRACT ? "the router contract changed"
      : /^rules\//.test(c.path) ? "a rule changed"
      : isManifest(c.path) ? "a dependency manifest changed"
      : /^docs\/adr\//.test(c.path) ? "an ADR changed"
      : LEDGER.test(c.path) ? "the ledger changed (the stack map links records)"
      : isComponentReadme(c.path) ? "a component README changed"
      : undefined,
  SURFACE: (c, input) =>
    input.briefed.has(c.path) ? "a briefed item changed"
      : /^docs\/business\//.test(c.path) ? "a business rule changed"
      : /^\.ai\/ledger\/question\//.test(c.path) ? "a question changed"
      : GENERATED.has(c.path) ? "the brief or index.json changed"
      : c.status !== "modified" && CORPUS.test(c.path) ? `an artifact was ${c.status === "deleted" ? "removed" : "added"}`
      : undefined
}

/** Why a change is an input of a station, or undefined when it is not. */
export const inputReason = (station: Station, change: Change, input: ScopeInput): string | undefined => INPUTS[station](change, input)

/** The plan: for each station, whether it has work and why. */
export const planScope = (input: ScopeInput): ReadonlyArray<StationPlan> => {
  const ignored = input.ignore.length === 0 ? () => false : scopeMatcher(input.ignore)
  const changes = input.changes.filter((c) => !ignored(c.path))
  return STATIONS.map((station) => {
    const hits = new Map<string, Array<string>>()
    const committed = (input.committed?.[station] ?? []).filter((c) => !ignored(c.path) && !changes.some((w) => w.path === c.path))
    for (const c of [...changes, ...committed]) {
      if (input.seen?.(station, c) === true) continue
      const why = INPUTS[station](c, input)
      if (why !== undefined) hits.set(why, [...(hits.get(why) ?? []), c.path])
    }
    const reasons = [...hits.entries()].map(([why, paths]) => `${why}: ${paths.slice(0, 3).join(", ")}${paths.length > 3 ? ` (+${paths.length - 3} more)` : ""}`)
    if (station === "CAPTURE" && input.newCommits > 0) reasons.push(`${input.newCommits} new commit${input.newCommits === 1 ? "" : "s"} to mine`)
    return { station, work: reasons.length > 0, reasons }
  })
}
