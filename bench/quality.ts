/**
 * The search-quality fixtures of ../shared/bench (spec 10 §1 "quality"), as
 * functions over any ranked search: the curate-golden composite and the
 * ranking-baseline expectations. Used by `npm run bench` (bench/driver.ts)
 * and by test/conformance/search-quality.test.ts. The fixtures are read from
 * ../shared (or $AKM_CORPORA) at run time and never copied into the project.
 */
import { cpSync, existsSync, mkdtempSync, readFileSync, rmSync } from "node:fs"
import { tmpdir } from "node:os"
import { join, resolve } from "node:path"
import { fileURLToPath } from "node:url"
import { meanScores, scoreRanking, type Judgment, type RankScores } from "../src/domain/RankMetrics.js"

/** Where the shared corpora live: $AKM_CORPORA, else ../shared beside the project. */
export const sharedRoot = (): string =>
  process.env.AKM_CORPORA !== undefined && process.env.AKM_CORPORA !== "" ? resolve(process.env.AKM_CORPORA) : fileURLToPath(new URL("../../shared", import.meta.url))

export const hasSharedBench = (): boolean => existsSync(join(sharedRoot(), "bench", "curate-golden", "judgments.json"))

/** Files of a fixture folder that are not stash assets (their NOTICE.md says: leave them out of the index). */
const NOT_ASSETS = ["judgments.json", "expectations.json", "NOTICE.md"]

/** Copies ../shared/bench/<name> into a fresh temp folder without its non-asset files; remove() deletes it. */
export const fixtureCopy = (name: "curate-golden" | "ranking-baseline") => {
  const root = mkdtempSync(join(tmpdir(), `akm-${name}-`))
  const dir = join(root, name)
  cpSync(join(sharedRoot(), "bench", name), dir, { recursive: true })
  for (const file of NOT_ASSETS) rmSync(join(dir, file), { force: true })
  return { dir, remove: () => rmSync(root, { recursive: true, force: true }) }
}

const readJson = <A>(...parts: ReadonlyArray<string>): A => JSON.parse(readFileSync(join(sharedRoot(), ...parts), "utf8")) as A

/** Fixture refs are short (`skills/docker-homelab`); ours are `bundle//skills/docker-homelab`. */
export const shortRef = (ref: string): string => (ref.includes("//") ? ref.slice(ref.indexOf("//") + 2) : ref)

// --- curate-golden ------------------------------------------------------------------------

export interface GoldenQuery extends Judgment {
  readonly id: string
  readonly query: string
}

export const goldenQueries = (): ReadonlyArray<GoldenQuery> => readJson<{ queries: ReadonlyArray<GoldenQuery> }>("bench", "curate-golden", "judgments.json").queries

export interface GoldenReport {
  readonly cases: ReadonlyArray<{ readonly id: string; readonly query: string; readonly returned: ReadonlyArray<string> } & RankScores>
  readonly mean: RankScores
}

/**
 * Runs every curate-golden query through `run` (search or curate: the query
 * and the query's limit in, refs in rank order out) and scores it with the
 * fixture's metric (curate-golden/NOTICE.md).
 */
export const runCurateGolden = async (run: (query: string, limit: number) => Promise<ReadonlyArray<string>>): Promise<GoldenReport> => {
  const cases = []
  for (const q of goldenQueries()) {
    const returned = (await run(q.query, q.limit)).map(shortRef)
    cases.push({ id: q.id, query: q.query, returned, ...scoreRanking(returned, q) })
  }
  return { cases, mean: meanScores(cases) }
}

// --- ranking-baseline ---------------------------------------------------------------------

/** What the expectations look at in one hit. */
export interface BaselineHit {
  readonly ref: string
  readonly type: string | null
  readonly score: number
  readonly why: ReadonlyArray<string>
}

interface RefAssertion {
  readonly id: string
  readonly query: string
  readonly ref: string
  readonly rule: "rank1" | "top3" | "present" | "above"
  readonly other?: string
  readonly onlyIfOtherPresent?: boolean
  readonly type?: string
  readonly minHits?: number
  readonly minScoreExclusive?: number
  readonly whyMatchedIncludes?: string
}

interface OtherAssertion {
  readonly id: string
  readonly query: string
  readonly rule: "typeAbove" | "topScoreAbove" | "topScoreEquals" | "scoresNonIncreasing" | "scoreRangeAbove" | "minHits" | "noHits" | "noCrash"
  readonly types?: ReadonlyArray<string>
  readonly otherTypes?: ReadonlyArray<string>
  readonly value?: number
  readonly minHits?: number
}

/**
 * akm 0.9.0 explained matches in prose ("matched searchHints"); our hits say
 * which field matched (`why`). The intent of each phrase — that the named
 * frontmatter field contributed — maps to one of our `why` entries.
 */
const WHY_INTENT: Readonly<Record<string, ReadonlyArray<string>>> = {
  "curated metadata boost": ["quality:curated"],
  "matched searchHints": ["hints"],
  "matched aliases": ["tags", "exact-alias"],
  "matched tags": ["tags", "exact-alias"]
}

const checkRef = (a: RefAssertion, hits: ReadonlyArray<BaselineHit>): string | undefined => {
  const refs = hits.map((h) => shortRef(h.ref))
  if (a.minHits !== undefined && hits.length < a.minHits) return `${hits.length} hits, expected at least ${a.minHits}`
  const at = refs.indexOf(a.ref)
  const hit = hits[at]
  if (a.rule === "above") {
    const other = refs.indexOf(a.other!)
    if (other === -1) return a.onlyIfOtherPresent === true ? (at === -1 ? `${a.ref} not returned` : undefined) : `${a.other} not returned`
    return at !== -1 && at < other ? undefined : `${a.ref} at ${at + 1}, ${a.other} at ${other + 1}`
  }
  if (hit === undefined) return `${a.ref} not returned (got ${refs.join(", ") || "nothing"})`
  if (a.rule === "rank1" && at !== 0) return `${a.ref} at rank ${at + 1}, expected 1 (first: ${refs[0]})`
  if (a.rule === "top3" && at > 2) return `${a.ref} at rank ${at + 1}, expected top 3`
  if (a.type !== undefined && hit.type !== a.type) return `${a.ref} has type ${hit.type}, expected ${a.type}`
  if (a.minScoreExclusive !== undefined && !(hit.score > a.minScoreExclusive)) return `${a.ref} scores ${hit.score}, expected > ${a.minScoreExclusive}`
  if (a.whyMatchedIncludes !== undefined) {
    const wanted = WHY_INTENT[a.whyMatchedIncludes] ?? [a.whyMatchedIncludes]
    if (!wanted.some((w) => hit.why.includes(w))) return `${a.ref} why [${hit.why.join(", ")}] shows none of ${wanted.join(", ")} (${a.whyMatchedIncludes})`
  }
  return undefined
}

const checkOther = (a: OtherAssertion, hits: ReadonlyArray<BaselineHit>): string | undefined => {
  if (a.minHits !== undefined && hits.length < a.minHits) return `${hits.length} hits, expected at least ${a.minHits}`
  const scores = hits.map((h) => h.score)
  switch (a.rule) {
    case "typeAbove": {
      const best = hits.findIndex((h) => h.type !== null && a.types!.includes(h.type))
      const other = hits.findIndex((h) => h.type !== null && a.otherTypes!.includes(h.type))
      if (best === -1) return `no hit of type ${a.types!.join("/")}`
      return other === -1 || best < other ? undefined : `best ${a.types!.join("/")} at ${best + 1}, ${a.otherTypes!.join("/")} at ${other + 1}`
    }
    case "topScoreAbove":
      return scores[0] !== undefined && scores[0] > a.value! ? undefined : `top score ${scores[0]}, expected > ${a.value}`
    case "topScoreEquals": {
      const [top, second] = scores
      return top !== undefined && top === a.value && (second === undefined || top >= second) ? undefined : `top score ${top}, expected ${a.value}`
    }
    case "scoresNonIncreasing":
      return scores.every((s, i) => i === 0 || s <= scores[i - 1]!) ? undefined : `scores ${scores.join(", ")} increase somewhere`
    case "scoreRangeAbove":
      return scores.length > 0 && scores[0]! - scores[scores.length - 1]! > a.value! ? undefined : `score range ${scores[0]! - scores[scores.length - 1]!}, expected > ${a.value}`
    case "minHits":
      return hits.length >= a.value! ? undefined : `${hits.length} hits, expected at least ${a.value}`
    case "noHits":
      return hits.length === 0 ? undefined : `${hits.length} hits, expected none`
    case "noCrash":
      return undefined
  }
}

export interface BaselineReport {
  readonly total: number
  readonly passed: number
  readonly failures: ReadonlyArray<{ readonly id: string; readonly query: string; readonly reason: string }>
}

/**
 * Checks every ranking-baseline assertion (expectations.json: 25 ref
 * assertions, 10 others) against `search` with limit 20 over the fixture
 * mounted as one bundle. A search that throws fails its assertion.
 */
export const runRankingBaseline = async (search: (query: string, limit: number) => Promise<ReadonlyArray<BaselineHit>>): Promise<BaselineReport> => {
  const expectations = readJson<{ assertions: ReadonlyArray<RefAssertion>; otherAssertions: ReadonlyArray<OtherAssertion> }>("bench", "ranking-baseline", "expectations.json")
  const failures: Array<{ id: string; query: string; reason: string }> = []
  const all = [...expectations.assertions.map((a) => ({ a, check: (h: ReadonlyArray<BaselineHit>) => checkRef(a, h) })), ...expectations.otherAssertions.map((a) => ({ a, check: (h: ReadonlyArray<BaselineHit>) => checkOther(a, h) }))]
  for (const { a, check } of all) {
    let reason: string | undefined
    try {
      reason = check(await search(a.query, 20))
    } catch (error) {
      reason = `search failed: ${String(error)}`
    }
    if (reason !== undefined) failures.push({ id: a.id, query: a.query, reason })
  }
  return { total: all.length, passed: all.length - failures.length, failures }
}
