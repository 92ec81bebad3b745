import type * as Command from "@effect/cli/Command"
import * as HelpDoc from "@effect/cli/HelpDoc"

/**
 * A plain description of akm's command tree, read from the @effect/cli
 * descriptors so the argv check (argvCheck.ts), the help text (help.ts) and
 * the tests that walk every command share one source and no hand-kept list.
 * @effect/cli exposes no public walker, so this reads the descriptor variants
 * of @effect/cli 0.77 (Standard, Map, Subcommands; Single, Map, Both, OrElse,
 * Variadic, WithDefault, WithFallback, KeyValueMap).
 */

export interface OptionNode {
  /** The long name with dashes, e.g. `--bundle`. */
  readonly name: string
  /** Other accepted spellings, e.g. `-q`, `--tags`. */
  readonly aliases: ReadonlyArray<string>
  /** A flag takes no value (it may still be followed by true/false, as @effect/cli allows). */
  readonly flag: boolean
  /** What the value looks like in help: `<name>`, `text|json`… (empty for a flag). */
  readonly placeholder: string
  readonly choices: ReadonlyArray<string>
  readonly integer: boolean
  readonly repeatable: boolean
  readonly optional: boolean
  readonly description: string
}

export interface ArgNode {
  readonly name: string
  /** The accepted values of a choice argument (e.g. `completions <shell>`); empty otherwise. */
  readonly choices: ReadonlyArray<string>
  readonly repeatable: boolean
  readonly optional: boolean
  readonly description: string
}

export interface CommandNode {
  readonly name: string
  /** Words from `akm` to this command, e.g. ["bundle", "add"]. */
  readonly path: ReadonlyArray<string>
  readonly description: string
  readonly options: ReadonlyArray<OptionNode>
  readonly args: ReadonlyArray<ArgNode>
  readonly subcommands: ReadonlyArray<CommandNode>
}

// The descriptor internals are untyped here on purpose: they are @effect/cli's private shape.
// eslint-disable-next-line @typescript-eslint/no-explicit-any
type Node = Record<string, any>

/** A HelpDoc as one line of plain text. */
const docText = (doc: unknown): string =>
  doc === undefined || (doc as Node)._tag === "Empty"
    ? ""
    : HelpDoc.toAnsiText(doc as HelpDoc.HelpDoc)
        // eslint-disable-next-line no-control-regex
        .replace(/\u001b\[[0-9;]*m/g, "")
        .replace(/\s+/g, " ")
        .trim()

/**
 * `description` as a getter that renders the HelpDoc on first read: every
 * command line checks argv against the whole tree, and rendering every
 * description (HelpDoc to ANSI text) took a sixth of a no-op `akm index`
 * (docs/decisions/0039-index-build-speed.md); only help and completions read them.
 */
const describedBy = <A extends object>(node: A, doc: unknown): A & { readonly description: string } => {
  let text: string | undefined
  return Object.defineProperty(node, "description", { enumerable: true, get: () => (text ??= docText(doc)) }) as A & { readonly description: string }
}

const placeholderFor = (name: string, primitive: Node, pseudo: Node | undefined): string => {
  if (pseudo?._tag === "Some") return `<${pseudo.value as string}>`
  switch (primitive._tag) {
    case "Bool":
      return ""
    case "Choice":
      return (primitive.alternatives as ReadonlyArray<[string, unknown]>).map(([choice]) => choice).join("|")
    case "Integer":
      return "<n>"
    case "Path":
      return "<path>"
    default:
      return `<${name.split("-").at(-1)!}>`
  }
}

interface Flags {
  readonly repeatable: boolean
  readonly optional: boolean
}

const walkOptions = (options: Node, flags: Flags, out: Array<OptionNode>): void => {
  switch (options._tag) {
    case "Empty":
      return
    case "Single": {
      const primitive = options.primitiveType as Node
      const aliases = (options.aliases as ReadonlyArray<string>).map((a) => (a.length === 1 ? `-${a}` : `--${a}`))
      out.push(describedBy({
        name: options.fullName as string,
        aliases,
        flag: primitive._tag === "Bool",
        placeholder: placeholderFor(options.name as string, primitive, options.pseudoName as Node),
        choices: primitive._tag === "Choice" ? (primitive.alternatives as ReadonlyArray<[string, unknown]>).map(([c]) => c) : [],
        integer: primitive._tag === "Integer",
        repeatable: flags.repeatable,
        optional: flags.optional || primitive._tag === "Bool"
      }, options.description))
      return
    }
    case "Map":
    case "WithFallback":
      return walkOptions(options.options as Node, options._tag === "WithFallback" ? { ...flags, optional: true } : flags, out)
    case "WithDefault":
      return walkOptions(options.options as Node, { ...flags, optional: true }, out)
    case "Both":
    case "OrElse":
      walkOptions(options.left as Node, flags, out)
      return walkOptions(options.right as Node, flags, out)
    case "Variadic":
      return walkOptions(options.argumentOption as Node, { ...flags, repeatable: true }, out)
    case "KeyValueMap":
      return walkOptions(options.argumentOption as Node, { ...flags, repeatable: true }, out)
    default:
      return
  }
}

const walkArgs = (args: Node, flags: Flags, out: Array<ArgNode>): void => {
  switch (args._tag) {
    case "Empty":
      return
    case "Single":
      out.push(describedBy({
        name: args.name as string,
        choices: (args.primitiveType as Node)?._tag === "Choice" ? (args.primitiveType.alternatives as ReadonlyArray<[string, unknown]>).map(([c]) => c) : [],
        repeatable: flags.repeatable,
        optional: flags.optional
      }, args.description))
      return
    case "Map":
      return walkArgs(args.args as Node, flags, out)
    case "WithDefault":
    case "WithFallbackConfig":
      return walkArgs(args.args as Node, { ...flags, optional: true }, out)
    case "Both":
      walkArgs(args.left as Node, flags, out)
      return walkArgs(args.right as Node, flags, out)
    case "Variadic":
      return walkArgs(args.args as Node, { repeatable: true, optional: flags.optional || (args.min as { _tag: string; value?: number })?.value === undefined || (args.min as { value: number }).value === 0 }, out)
    default:
      return
  }
}

const walk = (descriptor: Node, path: ReadonlyArray<string>): CommandNode => {
  switch (descriptor._tag) {
    case "Map":
      return walk(descriptor.command as Node, path)
    case "Subcommands": {
      const parent = walk(descriptor.parent as Node, path)
      const subcommands = (descriptor.children as ReadonlyArray<Node>).map((child) => {
        const name = standardName(child)
        return walk(child, [...path, name])
      })
      // Assigned, not spread: a spread would read (render) the parent's description.
      ;(parent as { subcommands: ReadonlyArray<CommandNode> }).subcommands = subcommands
      return parent
    }
    default: {
      const options: Array<OptionNode> = []
      const args: Array<ArgNode> = []
      walkOptions(descriptor.options as Node, { repeatable: false, optional: false }, options)
      walkArgs(descriptor.args as Node, { repeatable: false, optional: false }, args)
      return describedBy({ name: descriptor.name as string, path, options, args, subcommands: [] as ReadonlyArray<CommandNode> }, descriptor.description)
    }
  }
}

const standardName = (descriptor: Node): string =>
  descriptor._tag === "Map" ? standardName(descriptor.command as Node)
  : descriptor._tag === "Subcommands" ? standardName(descriptor.parent as Node)
  : (descriptor.name as string)

/** The tree of a command built with @effect/cli, root first (path []). */
export const describeCommand = (command: Command.Command<string, never, unknown, unknown>): CommandNode =>
  walk((command as unknown as { descriptor: Node }).descriptor, [])

/** Every command of the tree, the root and groups included, parents before children. */
export const allCommands = (root: CommandNode): ReadonlyArray<CommandNode> => [root, ...root.subcommands.flatMap(allCommands)]

/** The command a path of words names, with how many words it used. */
export const findCommand = (root: CommandNode, words: ReadonlyArray<string>): { readonly node: CommandNode; readonly used: number } => {
  let node = root
  let used = 0
  for (const word of words) {
    const next = node.subcommands.find((c) => c.name === word)
    if (next === undefined) break
    node = next
    used++
  }
  return { node, used }
}
