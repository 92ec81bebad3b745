/**
 * The part of semver that resolving an npm: source needs: parse versions,
 * compare them, and match the common range forms (exact, `^`, `~`, x-ranges,
 * comparators, `||`, hyphen ranges) with node-semver's meaning, including its
 * prerelease rule. Written here because `semver` is not a direct dependency;
 * swap it in if it becomes one.
 */

export interface SemVer {
  readonly major: number
  readonly minor: number
  readonly patch: number
  /** Dot-separated prerelease identifiers; numeric ones as numbers. */
  readonly prerelease: ReadonlyArray<string | number>
  readonly raw: string
}

const IDENT = "[0-9A-Za-z-]+"
const VERSION = new RegExp(`^v?(0|[1-9]\\d*)\\.(0|[1-9]\\d*)\\.(0|[1-9]\\d*)(?:-(${IDENT}(?:\\.${IDENT})*))?(?:\\+${IDENT}(?:\\.${IDENT})*)?$`)

const number = (text: string): number | undefined => {
  const value = Number(text)
  return Number.isSafeInteger(value) ? value : undefined
}

/** A strict semver version (an optional leading `v` or `=` is tolerated, as npm does); undefined when it is not one. */
export const parseVersion = (input: string): SemVer | undefined => {
  const text = input.trim().replace(/^=+\s*/, "")
  const match = VERSION.exec(text)
  if (match === null) return undefined
  const [major, minor, patch] = [number(match[1]!), number(match[2]!), number(match[3]!)]
  if (major === undefined || minor === undefined || patch === undefined) return undefined
  const prerelease = match[4] === undefined ? [] : match[4].split(".").map((id) => (/^\d+$/.test(id) ? Number(id) : id))
  // Numeric identifiers must not have leading zeros (semver 2.0.0 §9).
  if (match[4] !== undefined && match[4].split(".").some((id) => /^0\d+$/.test(id))) return undefined
  return { major, minor, patch, prerelease, raw: text.replace(/^v/, "") }
}

const compareIdentifiers = (a: string | number, b: string | number): number => {
  if (typeof a === "number" && typeof b === "number") return a - b
  if (typeof a === "number") return -1
  if (typeof b === "number") return 1
  return a < b ? -1 : a > b ? 1 : 0
}

/** Semver precedence: negative when a < b, 0 when equal (build metadata ignored), positive when a > b. */
export const compareVersions = (a: SemVer, b: SemVer): number => {
  if (a.major !== b.major) return a.major - b.major
  if (a.minor !== b.minor) return a.minor - b.minor
  if (a.patch !== b.patch) return a.patch - b.patch
  if (a.prerelease.length === 0 || b.prerelease.length === 0) return b.prerelease.length - a.prerelease.length
  for (let i = 0; i < Math.max(a.prerelease.length, b.prerelease.length); i++) {
    const [x, y] = [a.prerelease[i], b.prerelease[i]]
    if (x === undefined) return -1
    if (y === undefined) return 1
    const order = compareIdentifiers(x, y)
    if (order !== 0) return order
  }
  return 0
}

type Operator = "<" | "<=" | ">" | ">=" | "="
interface Comparator {
  readonly op: Operator
  readonly version: SemVer
}
/** A comparator set: every comparator must hold. */
type ComparatorSet = ReadonlyArray<Comparator>
/** Sets joined by `||`: any set may hold. */
export interface Range {
  readonly sets: ReadonlyArray<ComparatorSet>
  readonly raw: string
}

const version = (major: number, minor: number, patch: number, prerelease: ReadonlyArray<string | number> = []): SemVer => ({
  major,
  minor,
  patch,
  prerelease,
  raw: `${major}.${minor}.${patch}${prerelease.length > 0 ? `-${prerelease.join(".")}` : ""}`
})
/** The lowest version of a release line: `<2.0.0-0` excludes 2.0.0's prereleases too, as node-semver does. */
const floor = (major: number, minor: number, patch: number): SemVer => version(major, minor, patch, [0])
const cmp = (op: Operator, v: SemVer): Comparator => ({ op, version: v })

/** A partial version: `1`, `1.2`, `1.2.x`, `*`, `1.2.3-beta.1`; missing or wildcard parts are undefined. */
interface Partial {
  readonly major?: number | undefined
  readonly minor?: number | undefined
  readonly patch?: number | undefined
  readonly prerelease: ReadonlyArray<string | number>
}

const PARTIAL = new RegExp(`^v?(\\d+|[xX*])(?:\\.(\\d+|[xX*])(?:\\.(\\d+|[xX*])(?:-(${IDENT}(?:\\.${IDENT})*))?(?:\\+${IDENT}(?:\\.${IDENT})*)?)?)?$`)

const parsePartial = (text: string): Partial | undefined => {
  if (text === "") return { prerelease: [] }
  const match = PARTIAL.exec(text)
  if (match === null) return undefined
  const part = (value: string | undefined): number | undefined | null =>
    value === undefined || /^[xX*]$/.test(value) ? undefined : number(value) ?? null
  const [major, minor, patch] = [part(match[1]), part(match[2]), part(match[3])]
  if (major === null || minor === null || patch === null) return undefined
  // `1.x.3` has a wildcard before a number: node-semver treats later parts as wildcards too.
  const mj = major
  const mn = mj === undefined ? undefined : minor
  const pt = mn === undefined ? undefined : patch
  const prerelease = match[4] === undefined || pt === undefined ? [] : match[4].split(".").map((id) => (/^\d+$/.test(id) ? Number(id) : id))
  return { major: mj, minor: mn, patch: pt, prerelease }
}

const full = (p: Partial): p is Partial & { major: number; minor: number; patch: number } =>
  p.major !== undefined && p.minor !== undefined && p.patch !== undefined

/** `1.2` / `1.x` / `*` as a set of comparators. */
const xRange = (p: Partial): ComparatorSet => {
  if (p.major === undefined) return [cmp(">=", version(0, 0, 0))]
  if (p.minor === undefined) return [cmp(">=", version(p.major, 0, 0)), cmp("<", floor(p.major + 1, 0, 0))]
  if (p.patch === undefined) return [cmp(">=", version(p.major, p.minor, 0)), cmp("<", floor(p.major, p.minor + 1, 0))]
  return [cmp("=", version(p.major, p.minor, p.patch, p.prerelease))]
}

const tilde = (p: Partial): ComparatorSet => {
  if (!full(p)) return xRange(p)
  return [cmp(">=", version(p.major, p.minor, p.patch, p.prerelease)), cmp("<", floor(p.major, p.minor + 1, 0))]
}

const caret = (p: Partial): ComparatorSet => {
  if (p.major === undefined) return xRange(p)
  const low = version(p.major, p.minor ?? 0, p.patch ?? 0, p.prerelease)
  if (p.major > 0) return [cmp(">=", low), cmp("<", floor(p.major + 1, 0, 0))]
  if (p.minor === undefined) return [cmp(">=", low), cmp("<", floor(1, 0, 0))]
  if (p.minor > 0 || p.patch === undefined) return [cmp(">=", low), cmp("<", floor(0, p.minor + 1, 0))]
  return [cmp(">=", low), cmp("<", floor(0, 0, p.patch + 1))]
}

/** `>1.2`, `<=1`, … with partial versions, following node-semver's desugaring. */
const primitive = (op: Operator, p: Partial): ComparatorSet | undefined => {
  if (op === "=") return xRange(p)
  if (full(p)) return [cmp(op, version(p.major, p.minor, p.patch, p.prerelease))]
  if (p.major === undefined) return op === ">=" || op === "<=" ? [cmp(">=", version(0, 0, 0))] : [cmp("<", floor(0, 0, 0))]
  const minor = p.minor
  switch (op) {
    case ">":
      return [cmp(">=", minor === undefined ? version(p.major + 1, 0, 0) : version(p.major, minor + 1, 0))]
    case ">=":
      return [cmp(">=", version(p.major, minor ?? 0, 0))]
    case "<":
      return [cmp("<", floor(p.major, minor ?? 0, 0))]
    case "<=":
      return [cmp("<", minor === undefined ? floor(p.major + 1, 0, 0) : floor(p.major, minor + 1, 0))]
  }
}

const SIMPLE = /^(~>?|\^|[<>]=?|=)?(.*)$/

const parseSimple = (token: string): ComparatorSet | undefined => {
  const match = SIMPLE.exec(token)
  if (match === null) return undefined
  const partial = parsePartial(match[2]!)
  if (partial === undefined) return undefined
  const op = match[1]
  if (op === undefined) return xRange(partial)
  if (op.startsWith("~")) return tilde(partial)
  if (op === "^") return caret(partial)
  return primitive(op as Operator, partial)
}

const hyphen = (from: Partial, to: Partial): ComparatorSet => {
  const low = from.major === undefined ? [] : [cmp(">=", version(from.major, from.minor ?? 0, from.patch ?? 0, from.prerelease))]
  const high =
    to.major === undefined ? []
    : to.minor === undefined ? [cmp("<", floor(to.major + 1, 0, 0))]
    : to.patch === undefined ? [cmp("<", floor(to.major, to.minor + 1, 0))]
    : [cmp("<=", version(to.major, to.minor, to.patch, to.prerelease))]
  const set = [...low, ...high]
  return set.length === 0 ? [cmp(">=", version(0, 0, 0))] : set
}

/** Parses a range; undefined when it is not one (a dist-tag, a typo). */
export const parseRange = (input: string): Range | undefined => {
  const sets: Array<ComparatorSet> = []
  for (const alternative of input.split("||")) {
    // `>= 1.2` is `>=1.2`: glue operators to their versions before splitting on spaces.
    const text = alternative.trim().replace(/(~>?|\^|[<>]=?|=)\s+/g, "$1")
    const hyphenMatch = /^(\S+)\s+-\s+(\S+)$/.exec(text)
    if (hyphenMatch !== null) {
      const [from, to] = [parsePartial(hyphenMatch[1]!), parsePartial(hyphenMatch[2]!)]
      if (from === undefined || to === undefined) return undefined
      sets.push(hyphen(from, to))
      continue
    }
    const tokens = text === "" ? [""] : text.split(/\s+/)
    const set: Array<Comparator> = []
    for (const token of tokens) {
      const parsed = parseSimple(token)
      if (parsed === undefined) return undefined
      set.push(...parsed)
    }
    sets.push(set)
  }
  return { sets, raw: input }
}

const test = (c: Comparator, v: SemVer): boolean => {
  const order = compareVersions(v, c.version)
  switch (c.op) {
    case "<":
      return order < 0
    case "<=":
      return order <= 0
    case ">":
      return order > 0
    case ">=":
      return order >= 0
    case "=":
      return order === 0
  }
}

/**
 * node-semver's prerelease rule: a prerelease version matches a set only when
 * some comparator of that set names a prerelease of the same major.minor.patch
 * (so `^1.2.3-beta.1` admits `1.2.3-beta.2` but never `1.3.0-alpha`).
 */
const setAllows = (set: ComparatorSet, v: SemVer): boolean => {
  if (!set.every((c) => test(c, v))) return false
  if (v.prerelease.length === 0) return true
  return set.some((c) =>
    c.version.prerelease.length > 0 && c.version.major === v.major && c.version.minor === v.minor && c.version.patch === v.patch
  )
}

export const satisfies = (v: SemVer, range: Range): boolean => range.sets.some((set) => setAllows(set, v))

/** The highest of `versions` that satisfies `range` (as spelled in `versions`), or undefined. */
export const maxSatisfying = (versions: ReadonlyArray<string>, range: Range): string | undefined => {
  let best: { text: string; v: SemVer } | undefined
  for (const text of versions) {
    const v = parseVersion(text)
    if (v !== undefined && satisfies(v, range) && (best === undefined || compareVersions(v, best.v) > 0)) best = { text, v }
  }
  return best?.text
}

/** Versions newest first (unparseable ones dropped). */
export const sortDescending = (versions: ReadonlyArray<string>): ReadonlyArray<string> =>
  versions
    .map((text) => ({ text, v: parseVersion(text) }))
    .filter((e): e is { text: string; v: SemVer } => e.v !== undefined)
    .sort((a, b) => compareVersions(b.v, a.v))
    .map((e) => e.text)
