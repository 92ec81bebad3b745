import { UsageError } from "../../domain/Errors.js"
import type { BeliefFilter } from "../../domain/Search.js"
import type { Format } from "../options.js"
import type { SearchOptions } from "../searchCommon.js"

/**
 * The command lines of `akm search` the start-up fast path parses by hand
 * (docs/decisions/0002-start-up.md). Only shapes whose meaning under
 * @effect/cli is plain are accepted: `search` first, then query words and the
 * exact flags below, each at most once unless repeatable; after `--` every
 * word is a query word. Anything else — `--help`, `--filter`, `--opt=value`,
 * a value or word starting with `-` before `--`, a flag followed by a word
 * @effect/cli would read as its boolean value, a limit below 1 — returns
 * undefined, and the full CLI parses it instead, so errors and help stay its
 * own (an unknown option among them: searchOptionMisuse below).
 * test/cli/search-fastpath.test.ts checks both paths print the same bytes.
 */

export interface FastSearchArgs {
  readonly options: SearchOptions
  readonly format: Format | undefined
  readonly quiet: boolean
  readonly verbose: boolean
  readonly configDir: string | undefined
  readonly dataDir: string | undefined
  readonly cacheDir: string | undefined
}

const FORMATS: ReadonlySet<string> = new Set(["text", "json", "jsonl", "yaml", "md", "html"])
const BELIEFS: ReadonlySet<string> = new Set(["current", "historical", "all"])
/** Words @effect/cli takes as the value of the boolean flag they follow. */
const BOOLEAN_WORDS: ReadonlySet<string> = new Set(["true", "1", "y", "yes", "on", "false", "0", "n", "no", "off"])
const REPEATABLE: ReadonlySet<string> = new Set(["--bundle", "--type", "--adapter"])
const VALUED: ReadonlySet<string> = new Set(["--limit", "--format", "--belief", "--config-dir", "--data-dir", "--cache-dir", ...REPEATABLE])
const FLAGS: ReadonlySet<string> = new Set(["--include-proposed", "--no-track", "--quiet", "-q", "--verbose", "-v"])
const ALIAS: Readonly<Record<string, string>> = { "-q": "--quiet", "-v": "--verbose" }

/** A word the fast path takes as it is after `--`: not empty, no surrounding blanks. */
const forcedWord = (word: string): boolean => word !== "" && word.trim() === word

/** A word the fast path takes as it is before `--`: also not flag-like. */
const plainWord = (word: string): boolean => forcedWord(word) && !word.startsWith("-")

/** The options of a plain `akm search …` command line, or undefined to leave it to @effect/cli. */
export const parseSearchArgv = (argv: ReadonlyArray<string>): FastSearchArgs | undefined => {
  if (argv[0] !== "search") return undefined
  const query: Array<string> = []
  const values = new Map<string, Array<string>>()
  const flags = new Set<string>()
  for (let i = 1; i < argv.length; i++) {
    const arg = argv[i]!
    if (arg === "--") {
      const rest = argv.slice(i + 1)
      if (!rest.every(forcedWord)) return undefined
      query.push(...rest)
      break
    }
    if (VALUED.has(arg)) {
      const value = argv[i + 1]
      if (value === undefined || !plainWord(value)) return undefined
      const seen = values.get(arg)
      if (seen !== undefined && !REPEATABLE.has(arg)) return undefined
      values.set(arg, [...(seen ?? []), value])
      i++
    } else if (FLAGS.has(arg)) {
      const name = ALIAS[arg] ?? arg
      const next = argv[i + 1]
      if (flags.has(name) || (next !== undefined && BOOLEAN_WORDS.has(next))) return undefined
      flags.add(name)
    } else if (plainWord(arg)) {
      query.push(arg)
    } else return undefined
  }
  const one = (name: string): string | undefined => values.get(name)?.[0]
  const limitText = one("--limit")
  if (limitText !== undefined && !/^[1-9]\d{0,8}$/.test(limitText)) return undefined
  const format = one("--format")
  if (format !== undefined && !FORMATS.has(format)) return undefined
  const belief = one("--belief") ?? "current"
  if (!BELIEFS.has(belief)) return undefined
  return {
    options: {
      query,
      bundle: values.get("--bundle") ?? [],
      type: values.get("--type") ?? [],
      adapter: values.get("--adapter") ?? [],
      belief: belief as BeliefFilter,
      includeProposed: flags.has("--include-proposed"),
      filter: undefined,
      limit: limitText === undefined ? undefined : Number(limitText),
      noTrack: flags.has("--no-track")
    },
    format: format as Format | undefined,
    quiet: flags.has("--quiet"),
    verbose: flags.has("--verbose"),
    configDir: one("--config-dir"),
    dataDir: one("--data-dir"),
    cacheDir: one("--cache-dir")
  }
}

/** Options of `akm search` that take a value, with the value-taking built-in of @effect/cli. */
const ALL_VALUED: ReadonlySet<string> = new Set([...VALUED, "--filter", "--log-level"])
/** Every other option the command knows (booleans, and aliases). */
const ALL_FLAGS: ReadonlySet<string> = new Set([...FLAGS])
/** @effect/cli's built-ins: a command line with one of them is its own (help, wizard …). */
const BUILT_IN: ReadonlySet<string> = new Set(["--help", "-h", "--wizard", "--version", "--completions"])

/** Levenshtein distance, for a "did you mean" on a misspelt option. */
const distance = (a: string, b: string): number => {
  let row = Array.from({ length: b.length + 1 }, (_, j) => j)
  for (let i = 1; i <= a.length; i++) {
    const next = [i]
    for (let j = 1; j <= b.length; j++) next.push(Math.min(row[j]! + 1, next[j - 1]! + 1, row[j - 1]! + (a[i - 1] === b[j - 1] ? 0 : 1)))
    row = next
  }
  return row[b.length]!
}

/**
 * An unknown option on a `search` command line (argv after the global
 * options were hoisted): a usage error. @effect/cli would take it for query
 * words (`akm search retry --limt 3` searched for "retry --limt 3"), so the
 * full CLI asks this before parsing; the fast path leaves such a line to it.
 * Words after `--` are query words whatever they look like.
 */
export const searchOptionMisuse = (argv: ReadonlyArray<string>): UsageError | undefined => {
  if (argv[0] !== "search") return undefined
  const end = argv.indexOf("--")
  const options = end === -1 ? argv.slice(1) : argv.slice(1, end)
  if (options.some((arg) => BUILT_IN.has(arg.split("=")[0]!))) return undefined
  for (let i = 0; i < options.length; i++) {
    const arg = options[i]!
    if (ALL_VALUED.has(arg)) i++
    else if (!arg.startsWith("-") || arg === "-" || ALL_FLAGS.has(arg)) continue
    else {
      const name = arg.includes("=") ? arg.slice(0, arg.indexOf("=")) : arg
      if (ALL_VALUED.has(name) || ALL_FLAGS.has(name)) continue
      const known = [...ALL_VALUED, ...ALL_FLAGS].filter((option) => option.startsWith("--") && option !== "--log-level")
      const near = known.map((option) => [option, distance(name, option)] as const).sort((a, b) => a[1] - b[1])[0]
      const suggestion = near !== undefined && near[1] <= 2 ? `did you mean ${near[0]}? ` : ""
      return new UsageError({
        message: `unknown option ${name} for \`akm search\``,
        hint: `${suggestion}\`akm search --help\` lists the options; words after -- are query words (akm search -- "${name}")`
      })
    }
  }
  return undefined
}
