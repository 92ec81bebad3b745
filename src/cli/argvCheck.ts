import * as AutoCorrect from "@effect/cli/AutoCorrect"
import * as CliConfig from "@effect/cli/CliConfig"
import type { CommandNode, OptionNode } from "./commandTree.js"

/**
 * Checks a command line against the command tree before @effect/cli parses
 * it. @effect/cli 0.77 reads an unknown flag after a positional argument as
 * one more argument (`akm search foo --bogus` searched for "foo --bogus") and
 * answers a mistyped subcommand with the top-level command list; here every
 * command gets the same rules: an unknown option or command is a usage error
 * with a "did you mean", `--` ends the options, `--help` shows akm's help.
 */

export type ArgvCheck =
  /** `argv`: the command line as @effect/cli should parse it (clusters of one-letter flags such as -qv spelt out as -q -v). */
  | { readonly _tag: "Ok"; readonly command: CommandNode; readonly argv: ReadonlyArray<string> }
  | { readonly _tag: "Help"; readonly command: CommandNode }
  | { readonly _tag: "Usage"; readonly message: string; readonly hint: string }

/** Words @effect/cli takes as the value of the boolean flag they follow. */
const BOOLEAN_WORDS: ReadonlySet<string> = new Set(["true", "1", "y", "yes", "on", "false", "0", "n", "no", "off"])

const HELP = new Set(["--help", "-h"])

const commandName = (node: CommandNode): string => ["akm", ...node.path].join(" ")

/** The closest candidates to a mistyped word: at most 2 edits, or a word the input starts. */
export const closest = (word: string, candidates: ReadonlyArray<string>): ReadonlyArray<string> => {
  const scored = candidates
    .map((candidate) => ({ candidate, distance: AutoCorrect.levensteinDistance(word, candidate, CliConfig.defaultConfig) }))
    .filter(({ candidate, distance }) => distance <= Math.min(2, Math.max(1, Math.floor(candidate.length / 3))) || (word.length >= 3 && candidate.startsWith(word)))
    .sort((a, b) => a.distance - b.distance)
  return scored.map(({ candidate }) => candidate).slice(0, 3)
}

const didYouMean = (suggestions: ReadonlyArray<string>): string =>
  suggestions.length === 0 ? "" : `; did you mean ${suggestions.map((s) => `'${s}'`).join(" or ")}?`

const usage = (message: string, hint: string): ArgvCheck => ({ _tag: "Usage", message, hint })

const unknownCommand = (node: CommandNode, word: string): ArgvCheck => {
  const names = node.subcommands.map((c) => c.name).filter((n) => !n.startsWith("__"))
  const where = node.path.length === 0 ? "" : ` of \`${commandName(node)}\``
  return usage(
    `unknown command '${word}'${where}${didYouMean(closest(word, names))}`,
    `\`${commandName(node)}\` commands: ${names.join(", ")} (run \`${commandName(node)} --help\`)`
  )
}

const optionNames = (option: OptionNode): ReadonlyArray<string> => [option.name, ...option.aliases]

const unknownOption = (node: CommandNode, word: string): ArgvCheck => {
  const names = node.options.flatMap((o) => [o.name, ...o.aliases.filter((a) => a.startsWith("--"))])
  return usage(
    `unknown option '${word}' for \`${commandName(node)}\`${didYouMean(closest(word, names))}`,
    `run \`${commandName(node)} --help\` for its options; put \`--\` before an argument that starts with -`
  )
}

/** Why a value does not fit its option, in plain English, or undefined when it fits. */
const checkValue = (option: OptionNode, value: string): string | undefined => {
  if (option.integer && !/^[+-]?\d+$/.test(value.trim())) return `${option.name}: '${value}' is not an integer`
  if (option.choices.length > 0 && !option.choices.some((c) => c.toLowerCase() === value.toLowerCase())) {
    return `${option.name}: '${value}' is not one of ${option.choices.join(", ")}${didYouMean(closest(value, option.choices))}`
  }
  return undefined
}

/** Checks argv (without `node akm`); global options written before the command must already be moved after it. */
export const checkArgv = (root: CommandNode, argv: ReadonlyArray<string>): ArgvCheck => {
  let node = root
  let i = 0
  while (node.subcommands.length > 0) {
    const word = argv[i]
    // A command with options of its own also runs without a subcommand (`akm improve --dry-run`, `akm improve runs`).
    const runnable = node !== root && node.options.length > 0
    if (runnable && (word === undefined || (word.startsWith("-") && !HELP.has(word)))) break
    if (word === undefined) {
      if (node === root) return { _tag: "Help", command: root }
      return usage(`\`${commandName(node)}\` needs a command: ${node.subcommands.map((c) => c.name).join(", ")}`, `run \`${commandName(node)} --help\``)
    }
    if (HELP.has(word)) return { _tag: "Help", command: node }
    if (node === root && (word === "--version" || word === "-V")) return { _tag: "Ok", command: root, argv }
    if (word.startsWith("-") && word !== "-") {
      if (argv.slice(i).some((w) => HELP.has(w))) return { _tag: "Help", command: node }
      return node === root
        ? usage(`a command is required before '${word}'`, "run `akm --help` for the commands")
        : usage(`\`${commandName(node)}\` needs a command before '${word}'`, `run \`${commandName(node)} --help\``)
    }
    const child = node.subcommands.find((c) => c.name === word)
    if (child === undefined) return unknownCommand(node, word)
    node = child
    i++
  }
  // @effect/cli reads a cluster of one-letter flags as one unknown word (for search: query words), so it is spelt out.
  const spelt: Array<string> = [...argv]
  const byName = new Map<string, OptionNode>()
  for (const option of node.options) for (const name of optionNames(option)) byName.set(name, option)
  for (; i < argv.length; i++) {
    const word = argv[i]!
    if (word === "--") break
    if (HELP.has(word)) return { _tag: "Help", command: node }
    if (!word.startsWith("-") || word === "-") continue
    const name = word.includes("=") ? word.slice(0, word.indexOf("=")) : word
    const option = byName.get(name)
    if (option === undefined) {
      // A cluster of one-letter flags, e.g. -qv.
      const letters = /^-[A-Za-z]{2,}$/.test(word) ? [...word.slice(1)].map((l) => byName.get(`-${l}`)) : []
      if (letters.length > 0 && letters.every((o) => o !== undefined && o.flag)) {
        spelt[i] = [...word.slice(1)].map((l) => `-${l}`).join("\u0000")
        continue
      }
      return unknownOption(node, word)
    }
    if (option.flag) {
      if (!word.includes("=") && BOOLEAN_WORDS.has(argv[i + 1] ?? "")) i++
      continue
    }
    const value = word.includes("=") ? word.slice(word.indexOf("=") + 1) : argv[++i]
    // `--bundle --full`: the next word is this command's own option, not a value someone meant to give.
    const missing = value === undefined || (!word.includes("=") && value.startsWith("--") && byName.has(value.split("=")[0]!))
    if (missing) return usage(`${option.name} needs a value${option.placeholder === "" ? "" : ` (${option.placeholder})`}`, `run \`${commandName(node)} --help\``)
    const invalid = checkValue(option, value)
    if (invalid !== undefined) return usage(invalid, `run \`${commandName(node)} --help\``)
  }
  return { _tag: "Ok", command: node, argv: spelt.flatMap((word) => word.split("\u0000")) }
}
