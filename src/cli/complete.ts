import type { PathOverrides } from "../domain/Paths.js"
import type { ArgNode, CommandNode, OptionNode } from "./commandTree.js"
import { GLOBAL_OPTION_NAMES, isHidden } from "./help.js"

/**
 * What `akm __complete <words…>` offers for a command line (docs/decisions/0015-completions.md):
 * the shell scripts of `akm completions` pass the words typed after `akm`,
 * the last one being the word under the cursor (possibly empty). Everything
 * is read from the command tree (commandTree.ts) — commands, options, choices
 * — except bundle names and refs, which only the index knows: those are asked
 * for as a `lookup`, answered by programs/complete.ts.
 */

export interface CompletionLookup {
  readonly kind: "bundles" | "refs"
  /** What is typed of the value so far. */
  readonly partial: string
  /** Written before each value found: `--bundle=` when the word is `--bundle=…`, else "". */
  readonly insert: string
}

export interface CompletionPlan {
  /** Candidates known from the command tree alone, in order. */
  readonly candidates: ReadonlyArray<string>
  readonly lookup?: CompletionLookup | undefined
  /** --config-dir, --data-dir and --cache-dir given on the command line: the workspace the lookup reads. */
  readonly overrides: PathOverrides
}

const NOTHING: CompletionPlan = { candidates: [], lookup: undefined, overrides: {} }

const HELP_NAMES = ["--help", "-h"]

/** Arguments that name an existing bundle, by `<command path> <argument>`; `<ref>` arguments take refs. */
const BUNDLE_ARGS: ReadonlySet<string> = new Set([
  "bundle show <name>",
  "bundle update <name>",
  "bundle remove <name>",
  "bundle rename <old>",
  "bundle export <website-bundle>"
])

const REF_ARG = "<ref>"

/** Options whose value names an existing bundle (`--bundle`, `bundle export --to`). */
const takesBundle = (option: OptionNode): boolean => option.placeholder === "<bundle>"

const OVERRIDE_KEYS: Readonly<Record<string, keyof PathOverrides>> = { "--config-dir": "configDir", "--data-dir": "dataDir", "--cache-dir": "cacheDir" }

const startingWith = (candidates: ReadonlyArray<string>, partial: string): ReadonlyArray<string> => [...new Set(candidates.filter((c) => c.startsWith(partial)))]

/** The global options: declared by every leaf, accepted before the command too (options.ts hoistGlobalOptions). */
const globalOptions = (root: CommandNode): ReadonlyArray<OptionNode> => {
  const leaf = (node: CommandNode): CommandNode | undefined => (node.subcommands.length === 0 ? node : node.subcommands.map(leaf).find((l) => l !== undefined))
  return leaf(root)?.options.filter((o) => GLOBAL_OPTION_NAMES.has(o.name)) ?? []
}

const namesOf = (option: OptionNode): ReadonlyArray<string> => [option.name, ...option.aliases]

/** The argument a positional word at `index` fills (the last, repeatable one takes all the rest). */
const argAt = (args: ReadonlyArray<ArgNode>, index: number): ArgNode | undefined => {
  const last = args.at(-1)
  return index < args.length ? args[index] : last?.repeatable === true ? last : undefined
}

/** Plans the completion of `words` (the words after `akm`, the last one under the cursor). */
export const planCompletion = (root: CommandNode, words: ReadonlyArray<string>): CompletionPlan => {
  const typed = words.slice(0, -1)
  const partial = words.at(-1) ?? ""
  const globals = globalOptions(root)
  const overrides: { -readonly [K in keyof PathOverrides]: PathOverrides[K] } = {}
  const used = new Set<string>()
  let node = root
  let positional = 0
  let ended = false
  let pending: OptionNode | undefined
  const optionsOf = (at: CommandNode): ReadonlyArray<OptionNode> => (at.subcommands.length === 0 ? at.options : globals)
  const find = (name: string): OptionNode | undefined => optionsOf(node).find((o) => namesOf(o).includes(name))
  const setValue = (option: OptionNode, value: string): void => {
    const key = OVERRIDE_KEYS[option.name]
    if (key !== undefined) overrides[key] = value
  }

  for (const word of typed) {
    if (pending !== undefined) {
      setValue(pending, word)
      pending = undefined
    } else if (ended) {
      positional++
    } else if (word === "--") {
      ended = true
    } else if (word.startsWith("-") && word !== "-") {
      const eq = word.indexOf("=")
      const option = find(eq < 0 ? word : word.slice(0, eq))
      // An unknown option or a cluster such as -qv changes nothing that follows.
      if (option === undefined) continue
      used.add(option.name)
      if (option.flag) continue
      if (eq < 0) pending = option
      else setValue(option, word.slice(eq + 1))
    } else if (node.subcommands.length > 0) {
      const child = node.subcommands.find((c) => c.name === word && !isHidden(c))
      // An unknown command: akm would refuse the line, so nothing fits.
      if (child === undefined) return NOTHING
      node = child
    } else {
      positional++
    }
  }

  const plan = (candidates: ReadonlyArray<string>, lookup?: CompletionLookup): CompletionPlan => ({ candidates, lookup, overrides })

  const valuesOf = (option: OptionNode, value: string, insert: string): CompletionPlan =>
    option.choices.length > 0 ? plan(startingWith(option.choices, value).map((c) => `${insert}${c}`))
    : takesBundle(option) ? plan([], { kind: "bundles", partial: value, insert })
    : NOTHING

  const optionNames = (): ReadonlyArray<string> => {
    const options = optionsOf(node).filter((o) => o.repeatable || !used.has(o.name))
    const own = options.flatMap(namesOf)
    return startingWith([...own, ...HELP_NAMES, ...(node === root ? ["--version"] : [])], partial)
  }

  if (pending !== undefined) return valuesOf(pending, partial, "")
  if (!ended && partial.startsWith("-") && partial !== "-" && partial.includes("=")) {
    const eq = partial.indexOf("=")
    const option = find(partial.slice(0, eq))
    return option === undefined || option.flag ? NOTHING : valuesOf(option, partial.slice(eq + 1), partial.slice(0, eq + 1))
  }
  if (!ended && partial.startsWith("-")) return plan(optionNames())
  if (node.subcommands.length > 0) return ended ? NOTHING : plan(startingWith(node.subcommands.filter((c) => !isHidden(c)).map((c) => c.name), partial))

  const arg = argAt(node.args, positional)
  if (arg === undefined) return ended || partial !== "" ? NOTHING : plan(optionNames())
  if (arg.choices.length > 0) return plan(startingWith(arg.choices, partial))
  if (arg.name === REF_ARG) return plan([], { kind: "refs", partial, insert: "" })
  if (BUNDLE_ARGS.has(`${node.path.join(" ")} ${arg.name}`)) return plan([], { kind: "bundles", partial, insert: "" })
  return NOTHING
}
