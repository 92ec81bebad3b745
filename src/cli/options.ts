import * as Options from "@effect/cli/Options"
import { Option } from "effect"

export const FORMATS = ["text", "json", "jsonl", "yaml", "md", "html"] as const
export type Format = (typeof FORMATS)[number]

/**
 * Options every leaf command accepts. @effect/cli wants a parent's options
 * before its subcommand, so they are spread into each leaf instead (spec 00 §4.2).
 */
export const globalOptions = {
  format: Options.choice("format", FORMATS).pipe(
    Options.withDescription("output format: text, json, jsonl, yaml, md or html (default: text on a terminal, json otherwise)"),
    Options.optional
  ),
  quiet: Options.boolean("quiet").pipe(Options.withAlias("q"), Options.withDescription("no progress or hints on stderr")),
  verbose: Options.boolean("verbose").pipe(Options.withAlias("v"), Options.withDescription("more detail, including stack traces of internal errors")),
  configDir: Options.text("config-dir").pipe(Options.withDescription("config directory (same as AKM_CONFIG_DIR)"), Options.optional),
  dataDir: Options.text("data-dir").pipe(Options.withDescription("data directory (same as AKM_DATA_DIR)"), Options.optional),
  cacheDir: Options.text("cache-dir").pipe(Options.withDescription("cache directory (same as AKM_CACHE_DIR)"), Options.optional)
}

export interface GlobalOptions {
  readonly format: Option.Option<Format>
  readonly quiet: boolean
  readonly verbose: boolean
  readonly configDir: Option.Option<string>
  readonly dataDir: Option.Option<string>
  readonly cacheDir: Option.Option<string>
}

/** text on a terminal, json when piped (spec 09 §1). */
export const resolveFormat = (format: Option.Option<Format>, stdoutIsTTY: boolean): Format =>
  Option.getOrElse(format, () => (stdoutIsTTY ? "text" : "json"))

/** The format for output produced before options parsed (usage errors): read --format from raw argv. */
export const formatFromArgv = (argv: ReadonlyArray<string>, stdoutIsTTY: boolean): Format => {
  for (let i = 0; i < argv.length; i++) {
    const arg = argv[i]!
    const value = arg.startsWith("--format=") ? arg.slice(9) : arg === "--format" ? argv[i + 1] : undefined
    if (value !== undefined && (FORMATS as ReadonlyArray<string>).includes(value)) return value as Format
  }
  return stdoutIsTTY ? "text" : "json"
}

const VALUE_OPTIONS = new Set(["--format", "--config-dir", "--data-dir", "--cache-dir"])
const FLAG_OPTIONS = new Set(["--quiet", "-q", "--verbose", "-v"])

/**
 * `akm --format json info` reads naturally, but @effect/cli only accepts a
 * leaf's options after its subcommand (spec 00 §4.2): global options written
 * before the command are moved to the end.
 */
export const hoistGlobalOptions = (argv: ReadonlyArray<string>): ReadonlyArray<string> => {
  const leading: Array<string> = []
  let i = 0
  while (i < argv.length) {
    const arg = argv[i]!
    const name = arg.includes("=") ? arg.slice(0, arg.indexOf("=")) : arg
    if (VALUE_OPTIONS.has(name)) {
      const takesNext = !arg.includes("=")
      leading.push(...argv.slice(i, i + (takesNext ? 2 : 1)))
      i += takesNext ? 2 : 1
    } else if (FLAG_OPTIONS.has(arg)) {
      leading.push(arg)
      i++
    } else break
  }
  if (leading.length === 0 || i >= argv.length) return argv
  // Before a `--`: what follows it is arguments only.
  const rest = argv.slice(i)
  const end = rest.indexOf("--")
  return end < 0 ? [...rest, ...leading] : [...rest.slice(0, end), ...leading, ...rest.slice(end)]
}
