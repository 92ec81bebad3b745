import { MAX_LIMIT, type BeliefFilter } from "../../domain/Search.js"
import type { Format } from "../options.js"
import type { SearchOptions } from "../searchCommon.js"
import { BOOLEAN_WORDS, FORMATS } from "./argv.js"

/**
 * The command lines of `akm search` the start-up fast path parses by hand
 * (docs/decisions/0002-start-up.md). Only shapes whose meaning under
 * @effect/cli is plain are accepted: `search` first, then query words and the
 * exact flags below, each at most once unless repeatable; after `--` every
 * word is a query word. Anything else — `--help`, `--filter`, `--opt=value`,
 * a value or word starting with `-` before `--`, a flag followed by a word
 * @effect/cli would read as its boolean value, a limit outside 1–200 — returns
 * undefined, and the full CLI parses it instead, so errors and help stay its
 * own (an unknown option among them: cli/argvCheck.ts makes it a usage error).
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

const BELIEFS: ReadonlySet<string> = new Set(["current", "historical", "all"])
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
  // Outside 1–MAX_LIMIT is the full CLI's usage error (cli/limit.ts).
  if (limitText !== undefined && (!/^[1-9]\d{0,8}$/.test(limitText) || Number(limitText) > MAX_LIMIT)) return undefined
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
