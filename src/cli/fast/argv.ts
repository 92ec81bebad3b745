import type { Format } from "../options.js"

/**
 * The command lines of the read commands the start-up fast paths parse by hand
 * (`show`, `curate`, `info`, `bundle list`; docs/decisions/0013-fast-read-commands.md),
 * by the rules of searchArgv.ts: only shapes whose meaning under @effect/cli
 * is plain are accepted — the command's words first, then its positional
 * arguments and the exact flags it declares, each at most once unless
 * repeatable, plus the global options; after `--` every word is positional.
 * Anything else (`--help`, `--opt=value`, a value or word starting with `-`
 * before `--`, a boolean flag followed by a word @effect/cli would read as its
 * value, a value outside the flag's choices, too many or too few positionals)
 * returns undefined and the full CLI parses the command line, so errors and
 * help stay its own. The tests in test/cli/fast-read-commands.test.ts check
 * both paths print the same bytes.
 */

export interface FastCommandSpec {
  /** The command's words: ["show"], ["bundle", "list"]. */
  readonly words: ReadonlyArray<string>
  /** How many positional arguments it takes (exactly). */
  readonly positionals: number
  /** Options with a value; the set of allowed values, or a test, or undefined for any plain word. */
  readonly valued?: Readonly<Record<string, ReadonlySet<string> | RegExp | undefined>>
  /** Options that may be given more than once. */
  readonly repeatable?: ReadonlySet<string>
  /** Boolean flags besides the global ones. */
  readonly flags?: ReadonlySet<string>
}

export interface FastArgs {
  readonly positionals: ReadonlyArray<string>
  /** Every value of each valued option, in order. */
  readonly values: ReadonlyMap<string, ReadonlyArray<string>>
  readonly flags: ReadonlySet<string>
  readonly format: Format | undefined
  readonly quiet: boolean
  readonly verbose: boolean
  readonly configDir: string | undefined
  readonly dataDir: string | undefined
  readonly cacheDir: string | undefined
}

export const FORMATS: ReadonlySet<string> = new Set(["text", "json", "jsonl", "yaml", "md", "html"])
/** Words @effect/cli takes as the value of the boolean flag they follow. */
export const BOOLEAN_WORDS: ReadonlySet<string> = new Set(["true", "1", "y", "yes", "on", "false", "0", "n", "no", "off"])
const GLOBAL_VALUED: Readonly<Record<string, ReadonlySet<string> | RegExp | undefined>> = {
  "--format": FORMATS,
  "--config-dir": undefined,
  "--data-dir": undefined,
  "--cache-dir": undefined
}
const GLOBAL_FLAGS: ReadonlySet<string> = new Set(["--quiet", "-q", "--verbose", "-v"])
const ALIAS: Readonly<Record<string, string>> = { "-q": "--quiet", "-v": "--verbose" }

/** A whole number @effect/cli's integer option reads as written: no sign, no leading zero. */
export const POSITIVE_INTEGER = /^[1-9]\d{0,8}$/

/** A word taken as it is after `--`: not empty, no surrounding blanks. */
const forcedWord = (word: string): boolean => word !== "" && word.trim() === word

/** A word taken as it is before `--`: also not flag-like. */
const plainWord = (word: string): boolean => forcedWord(word) && !word.startsWith("-")

/** The parsed command line, or undefined to leave it to @effect/cli. */
export const parseFastArgv = (spec: FastCommandSpec, argv: ReadonlyArray<string>): FastArgs | undefined => {
  if (argv.length < spec.words.length || spec.words.some((word, i) => argv[i] !== word)) return undefined
  const valued = { ...GLOBAL_VALUED, ...spec.valued }
  const positionals: Array<string> = []
  const values = new Map<string, Array<string>>()
  const flags = new Set<string>()
  for (let i = spec.words.length; i < argv.length; i++) {
    const arg = argv[i]!
    if (arg === "--") {
      const rest = argv.slice(i + 1)
      if (!rest.every(forcedWord)) return undefined
      positionals.push(...rest)
      break
    }
    if (Object.hasOwn(valued, arg)) {
      const value = argv[i + 1]
      if (value === undefined || !plainWord(value)) return undefined
      const allowed = valued[arg]
      if (allowed instanceof RegExp ? !allowed.test(value) : allowed !== undefined && !allowed.has(value)) return undefined
      const seen = values.get(arg)
      if (seen !== undefined && spec.repeatable?.has(arg) !== true) return undefined
      values.set(arg, [...(seen ?? []), value])
      i++
    } else if (GLOBAL_FLAGS.has(arg) || spec.flags?.has(arg) === true) {
      const name = ALIAS[arg] ?? arg
      const next = argv[i + 1]
      if (flags.has(name) || (next !== undefined && BOOLEAN_WORDS.has(next))) return undefined
      flags.add(name)
    } else if (plainWord(arg)) {
      positionals.push(arg)
    } else return undefined
  }
  if (positionals.length !== spec.positionals) return undefined
  const one = (name: string): string | undefined => values.get(name)?.[0]
  return {
    positionals,
    values,
    flags,
    format: one("--format") as Format | undefined,
    quiet: flags.has("--quiet"),
    verbose: flags.has("--verbose"),
    configDir: one("--config-dir"),
    dataDir: one("--data-dir"),
    cacheDir: one("--cache-dir")
  }
}
