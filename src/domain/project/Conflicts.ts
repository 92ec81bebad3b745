import { filesMatching, globProblem, scopeMatcher, scopesOverlap } from "./Globs.js"
import { mandatesDisagree, mandatesOf, normaliseSubject, sharedWords, type Mandate } from "./Mandates.js"
import type { RuleFile, RuleProblem } from "./RuleFile.js"

/** One side of a conflicting pair of mandates. */
export interface ConflictSide {
  readonly rule: string
  readonly path: string
  readonly line: number
  readonly must: boolean
  readonly subject: string
}

export interface RuleConflict {
  readonly a: ConflictSide
  readonly b: ConflictSide
  /** How the scopes overlap: on real files, or only by their globs. */
  readonly overlap: "files" | "globs" | "everything"
  /** Tracked files both scopes match (sorted, at most MAX_FILES). */
  readonly files: ReadonlyArray<string>
  readonly filesTotal: number
  /** Structured subject, or the shared stemmed words for prose. */
  readonly on: string
  readonly adrStub: string
}

/** A scope that can never apply: a malformed glob, or one that matches no tracked file. */
export interface ScopeFinding extends RuleProblem {
  readonly code: "malformed-glob" | "scope-matches-nothing"
}

export const MAX_FILES = 20

const active = (rule: RuleFile): boolean => rule.supersededBy === undefined

const side = (rule: RuleFile, m: Mandate): ConflictSide => ({ rule: rule.id, path: rule.path, line: m.line, must: m.must, subject: m.subject })

const polarity = (must: boolean) => (must ? "must" : "must not")

/** The decision record a human fills in: conflicts are reported, never resolved here. */
export const adrStub = (a: RuleFile, b: RuleFile, ma: Mandate, mb: Mandate, files: ReadonlyArray<string>): string =>
  [
    `# Resolve the conflict between rule ${a.id} and rule ${b.id}`,
    "",
    "Status: proposed",
    "",
    "## Context",
    "",
    `- ${a.path}: ${polarity(ma.must)} ${ma.subject}`,
    `- ${b.path}: ${polarity(mb.must)} ${mb.subject}`,
    `- Both apply to: ${files.length === 0 ? "overlapping globs (no tracked file yet)" : files.slice(0, 5).join(", ") + (files.length > 5 ? `, … (${files.length})` : "")}`,
    "",
    "## Decision",
    "",
    "Narrow one scope, or replace both with one rule that states which mandate wins where.",
    "",
    "## Consequences",
    "",
    "…",
    ""
  ].join("\n")

/**
 * The conflict checker (R-HAR-3, R-CHK-1): two active rules conflict when
 * their scopes overlap — some tracked file matches both, or, when none does,
 * their globs overlap syntactically (an empty scope overlaps everything) —
 * and two of their mandates disagree. Pairs are sorted; nothing is resolved.
 */
export const findConflicts = (rules: ReadonlyArray<RuleFile>, tracked: ReadonlyArray<string>): ReadonlyArray<RuleConflict> => {
  const live = rules.filter(active).sort((x, y) => x.path.localeCompare(y.path))
  const valid = (r: RuleFile) => r.scope.filter((g) => globProblem(g) === undefined)
  const mandates = new Map(live.map((r) => [r.path, mandatesOf(r)]))
  // Each scope is matched against the files once (and only for rules in a disagreeing pair).
  const matched = new Map<string, ReadonlySet<string>>()
  const filesOf = (r: RuleFile) => {
    let set = matched.get(r.path)
    if (set === undefined) matched.set(r.path, (set = new Set(filesMatching(valid(r), tracked))))
    return set
  }
  const out: Array<RuleConflict> = []
  for (let i = 0; i < live.length; i++) {
    for (let j = i + 1; j < live.length; j++) {
      const a = live[i]!
      const b = live[j]!
      // Mandates first: cheap, and most pairs agree or talk about other things.
      const pairs = mandates.get(a.path)!.flatMap((x) => mandates.get(b.path)!.filter((y) => mandatesDisagree(x, y)).map((y) => [x, y] as const))
      if (pairs.length === 0) continue
      const sa = valid(a)
      const sb = valid(b)
      const inA = filesOf(a)
      const inB = filesOf(b)
      const [small, large] = inA.size <= inB.size ? [inA, inB] : [inB, inA]
      const both = [...small].filter((f) => large.has(f)).sort()
      const overlap = sa.length === 0 || sb.length === 0 ? "everything" : both.length > 0 ? "files" : scopesOverlap(sa, sb) ? "globs" : undefined
      if (overlap === undefined) continue
      for (const [x, y] of pairs) {
        out.push({
          a: side(a, x),
          b: side(b, y),
          overlap,
          files: both.slice(0, MAX_FILES),
          filesTotal: both.length,
          on: x.structured && y.structured ? normaliseSubject(x.subject) : sharedWords(x, y).join(", "),
          adrStub: adrStub(a, b, x, y, both)
        })
      }
    }
  }
  return out
}

/** Malformed globs and scopes that match no tracked file, each with its file and line. */
export const scopeFindings = (rules: ReadonlyArray<RuleFile>, tracked: ReadonlyArray<string>): ReadonlyArray<ScopeFinding> => {
  const out: Array<ScopeFinding> = []
  for (const rule of [...rules].sort((x, y) => x.path.localeCompare(y.path))) {
    const line = rule.keyLines["scope"] ?? 1
    const good: Array<string> = []
    for (const glob of rule.scope) {
      const problem = globProblem(glob)
      if (problem === undefined) good.push(glob)
      else out.push({ code: "malformed-glob", path: rule.path, line, message: `scope ${problem}` })
    }
    if (active(rule) && good.length > 0 && tracked.length > 0 && !tracked.some(scopeMatcher(good))) {
      out.push({ code: "scope-matches-nothing", path: rule.path, line, message: `scope ${good.map((g) => `'${g}'`).join(", ")} matches no tracked file` })
    }
  }
  return out
}

/** A rule whose `revisit_when` is met (R-HAR-4): its date has come, or its path matches nothing any more. */
export interface DueRevisit {
  readonly rule: string
  readonly path: string
  readonly line: number
  readonly reason: string
  readonly question: string
}

export const dueRevisits = (rules: ReadonlyArray<RuleFile>, tracked: ReadonlyArray<string>, today: string): ReadonlyArray<DueRevisit> =>
  rules.filter(active).flatMap((rule) => {
    const when = rule.revisitWhen
    if (when === undefined) return []
    const line = rule.keyLines["revisit_when"] ?? 1
    const reasons: Array<string> = []
    if (when.date !== undefined && when.date.slice(0, 10) <= today) reasons.push(`its revisit date ${when.date.slice(0, 10)} has come`)
    if (when.pathMissing !== undefined && globProblem(when.pathMissing) === undefined && filesMatching([when.pathMissing], tracked).length === 0) reasons.push(`no tracked file matches ${when.pathMissing} any more`)
    if (reasons.length === 0) return []
    const reason = reasons.join("; ")
    return [{ rule: rule.id, path: rule.path, line, reason, question: `Rule ${rule.id} (${rule.title}) is due for a revisit: ${reason}. Keep it, change it, or retire it?` }]
  })
