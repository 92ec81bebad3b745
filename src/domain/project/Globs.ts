import picomatch from "picomatch"

/**
 * Scope globs (spec 08 R-HAR-3): picomatch against the repository's tracked
 * files, and a syntactic overlap test for when no file matches both.
 */

const OPTIONS = { dot: true } as const

/** Why a glob cannot be a scope, or undefined when it can. */
export const globProblem = (glob: string): string | undefined => {
  const g = glob.trim()
  if (g === "") return "an empty glob"
  if (g.startsWith("/") || /^[A-Za-z]:[\\/]/.test(g)) return `'${glob}' is absolute; scopes are relative to the repository root`
  if (g.split("/").includes("..")) return `'${glob}' leaves the repository (..)`
  if (g.includes("\\")) return `'${glob}' uses \\; write paths with /`
  let square = 0
  let brace = 0
  let paren = 0
  for (const c of g) {
    if (c === "[") square++
    else if (c === "]") square = Math.max(0, square - 1)
    else if (c === "{") brace++
    else if (c === "}") brace--
    else if (c === "(") paren++
    else if (c === ")") paren--
    if (brace < 0 || paren < 0) return `'${glob}' closes a ${brace < 0 ? "{" : "("} it never opened`
  }
  if (square > 0) return `'${glob}' opens a [ it never closes`
  if (brace > 0) return `'${glob}' opens a { it never closes`
  if (paren > 0) return `'${glob}' opens a ( it never closes`
  try {
    picomatch.makeRe(g, OPTIONS)
  } catch (error) {
    return `'${glob}' is not a glob picomatch can read: ${(error as Error).message}`
  }
  return undefined
}

/** A matcher for a scope; an empty scope matches every path. */
export const scopeMatcher = (scope: ReadonlyArray<string>): ((path: string) => boolean) =>
  scope.length === 0 ? () => true : picomatch([...scope], OPTIONS)

/** The files a scope matches, in the given (sorted) order. */
export const filesMatching = (scope: ReadonlyArray<string>, files: ReadonlyArray<string>): ReadonlyArray<string> => {
  const match = scopeMatcher(scope)
  return files.filter((f) => match(f))
}

/** A path that a segment pattern could produce: wildcards and classes filled with the plainest text. */
const witness = (segment: string): string =>
  segment.replace(/\[[^\]]*\]/g, "x").replace(/\{([^,}]*)[^}]*\}/g, "$1").replace(/[*?]+/g, (m) => (m.includes("?") ? "x".repeat(m.length) : "")).replace(/[!@+]\(([^|)]*)[^)]*\)/g, "$1")

const literalEnds = (segment: string): { readonly prefix: string; readonly suffix: string } => {
  const first = segment.search(/[*?[{(!@+]/)
  if (first < 0) return { prefix: segment, suffix: segment }
  const rev = [...segment].reverse().join("")
  const last = rev.search(/[*?\]})]/)
  return { prefix: segment.slice(0, first), suffix: last < 0 ? "" : segment.slice(segment.length - last) }
}

/** Whether two path segments (no `/`) can name one file name. */
const segmentsOverlap = (a: string, b: string): boolean => {
  if (a === b || a === "*" || b === "*") return true
  const ma = picomatch(a, OPTIONS)
  const mb = picomatch(b, OPTIONS)
  const wa = witness(a)
  const wb = witness(b)
  if ((mb(wa) && ma(wa)) || (ma(wb) && mb(wb))) return true
  const ea = literalEnds(a)
  const eb = literalEnds(b)
  const wild = (s: string) => /[*?[{(]/.test(s)
  if (!wild(a) || !wild(b)) return false
  // Two patterns with wildcards overlap unless their literal ends contradict.
  const prefixOk = ea.prefix.startsWith(eb.prefix) || eb.prefix.startsWith(ea.prefix)
  const suffixOk = ea.suffix.endsWith(eb.suffix) || eb.suffix.endsWith(ea.suffix)
  return prefixOk && suffixOk
}

/**
 * Whether two globs can match one path, decided on their segments: `**`
 * matches any run of segments, other segments are compared pairwise. Used
 * when no tracked file matches both (a new directory, or a scope written ahead).
 */
export const globsOverlap = (a: string, b: string): boolean => {
  const sa = a.split("/").filter((s) => s !== "")
  const sb = b.split("/").filter((s) => s !== "")
  const memo = new Map<string, boolean>()
  const go = (i: number, j: number): boolean => {
    const key = `${i},${j}`
    const cached = memo.get(key)
    if (cached !== undefined) return cached
    let result: boolean
    if (i === sa.length && j === sb.length) result = true
    else if (i < sa.length && sa[i] === "**") result = go(i + 1, j) || (j < sb.length && go(i, j + 1))
    else if (j < sb.length && sb[j] === "**") result = go(i, j + 1) || (i < sa.length && go(i + 1, j))
    else if (i === sa.length || j === sb.length) result = false
    else result = segmentsOverlap(sa[i]!, sb[j]!) && go(i + 1, j + 1)
    memo.set(key, result)
    return result
  }
  return go(0, 0)
}

/** Two scopes overlap syntactically when some pair of their globs does; an empty scope overlaps everything. */
export const scopesOverlap = (a: ReadonlyArray<string>, b: ReadonlyArray<string>): boolean =>
  a.length === 0 || b.length === 0 || a.some((ga) => b.some((gb) => globsOverlap(ga, gb)))
