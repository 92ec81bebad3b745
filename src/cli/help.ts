import type { ArgNode, CommandNode, OptionNode } from "./commandTree.js"

/**
 * akm's own help text, written for an 80-column terminal. @effect/cli's
 * built-in help repeats type boilerplate ("A user-defined piece of text.",
 * "This setting is optional."), runs usage lines to hundreds of columns and
 * lists built-ins akm does not support (--wizard); this renders the same
 * command tree (commandTree.ts) plainly instead.
 */

export const HELP_WIDTH = 80

/** Option names every leaf declares (options.ts globalOptions); help lists them once, under akm --help. */
export const GLOBAL_OPTION_NAMES: ReadonlySet<string> = new Set(["--format", "--quiet", "--verbose", "--config-dir", "--data-dir", "--cache-dir"])

/** Words of `text` in lines of at most `width` columns (a longer word stands alone). */
export const wrap = (text: string, width: number): ReadonlyArray<string> => {
  const lines: Array<string> = []
  let line = ""
  for (const word of text.split(/\s+/).filter((w) => w !== "")) {
    if (line === "") line = word
    else if (line.length + 1 + word.length <= width) line += ` ${word}`
    else {
      lines.push(line)
      line = word
    }
  }
  if (line !== "") lines.push(line)
  return lines.length === 0 ? [""] : lines
}

/** A command's description without its example, and the example. */
export const splitDescription = (description: string): { readonly text: string; readonly example: string | undefined } => {
  const at = description.indexOf("Example: ")
  return at < 0 ? { text: description.trim(), example: undefined } : { text: description.slice(0, at).trim(), example: description.slice(at + 9).trim() }
}

/** The one-line summary of a command: its first sentence, or when that is long its part before a colon, semicolon or parenthesis. */
export const summary = (description: string): string => {
  const { text } = splitDescription(description)
  const sentence = (/^(.*?[.!?])(\s|$)/.exec(text)?.[1] ?? text).replace(/\.$/, "")
  // A long first sentence keeps its main clause, so the command list stays one line per command.
  return sentence.length <= 60 ? sentence : (/^(.*?)[:;(]\s?/.exec(sentence)?.[1]?.trim() ?? sentence)
}

/** Two columns: names on the left, wrapped text on the right; a long name puts its text on the next line. */
const rows = (entries: ReadonlyArray<readonly [string, string]>): ReadonlyArray<string> => {
  const indent = 2
  const widest = Math.max(0, ...entries.map(([name]) => name.length))
  const column = indent + Math.min(widest, 24) + 2
  const out: Array<string> = []
  for (const [name, text] of entries) {
    const lines = wrap(text, HELP_WIDTH - column)
    if (indent + name.length + 2 <= column) {
      out.push(`${" ".repeat(indent)}${name.padEnd(column - indent)}${lines[0]}`.trimEnd())
    } else {
      out.push(`${" ".repeat(indent)}${name}`)
      out.push(`${" ".repeat(column)}${lines[0]}`.trimEnd())
    }
    for (const line of lines.slice(1)) out.push(`${" ".repeat(column)}${line}`)
  }
  return out
}

const optionLabel = (option: OptionNode): string => {
  const names = [...option.aliases.filter((a) => a.length === 2), option.name, ...option.aliases.filter((a) => a.length > 2)].join(", ")
  return option.placeholder === "" ? names : `${names} ${option.placeholder}`
}

const optionText = (option: OptionNode): string => {
  const text = option.description === "" ? "" : option.description
  return option.repeatable && !/repeat/i.test(text) ? `${text} (repeatable)`.trim() : text
}

const argLabel = (arg: ArgNode): string => `${arg.name}${arg.repeatable ? "..." : ""}`

const argUsage = (arg: ArgNode): string => (arg.optional ? `[${argLabel(arg)}]` : argLabel(arg))

const paragraph = (text: string): ReadonlyArray<string> => wrap(text, HELP_WIDTH)

/** Commands named `__…` are plumbing for scripts (shell completion), not listed in help. */
export const isHidden = (node: CommandNode): boolean => node.name.startsWith("__")

const commandList = (node: CommandNode): ReadonlyArray<string> =>
  rows(node.subcommands.filter((c) => !isHidden(c)).map((c) => [c.name, summary(c.description)] as const))

const example = (lines: Array<string>, text: string | undefined): void => {
  if (text === undefined) return
  lines.push("", "Example:", ...wrap(text, HELP_WIDTH - 2).map((l) => `  ${l}`))
}

const rootHelp = (root: CommandNode, version: string): string => {
  const { text, example: rootExample } = splitDescription(root.description)
  const globals = root.subcommands.find((c) => c.subcommands.length === 0)?.options.filter((o) => GLOBAL_OPTION_NAMES.has(o.name)) ?? []
  const lines: Array<string> = [
    `akm ${version}`,
    "",
    "Usage: akm <command> [options]",
    "",
    ...paragraph(text),
    "",
    "Commands:",
    ...commandList(root),
    "",
    "Global options (every command takes them):",
    ...rows([
      ...globals.map((o) => [optionLabel(o), optionText(o)] as const),
      ["-h, --help", "show help for akm or for a command"],
      ["--version", "print akm's version"]
    ])
  ]
  example(lines, rootExample ?? 'akm search "rotate database credentials"')
  lines.push("", "Run `akm <command> --help` for a command's options and an example.")
  return `${lines.join("\n")}\n`
}

const groupHelp = (node: CommandNode): string => {
  const name = ["akm", ...node.path].join(" ")
  const { text, example: groupExample } = splitDescription(node.description)
  // A command that also runs by itself (`akm improve`) lists its own options too.
  const own = node.options.filter((o) => !GLOBAL_OPTION_NAMES.has(o.name))
  const usage = own.length > 0 ? [`Usage: ${name} [options]`, `       ${name} <command> [options]`] : [`Usage: ${name} <command> [options]`]
  const lines: Array<string> = [...usage, "", ...paragraph(text), "", "Commands:", ...commandList(node)]
  if (own.length > 0) lines.push("", "Options:", ...rows(own.map((o) => [optionLabel(o), optionText(o)] as const)))
  example(lines, groupExample)
  lines.push("", `Run \`${name} <command> --help\` for a command's options and an example.`)
  return `${lines.join("\n")}\n`
}

const leafHelp = (node: CommandNode): string => {
  const name = ["akm", ...node.path].join(" ")
  const { text, example: leafExample } = splitDescription(node.description)
  const own = node.options.filter((o) => !GLOBAL_OPTION_NAMES.has(o.name))
  const required = own.filter((o) => !o.optional && !o.repeatable)
  const usageWords = [
    name,
    ...required.map((o) => `${o.name} ${o.placeholder}`.trim()),
    ...(own.length > required.length ? ["[options]"] : ["[options]"]),
    ...node.args.map(argUsage)
  ]
  const lines: Array<string> = [...wrap(`Usage: ${usageWords.join(" ")}`, HELP_WIDTH), "", ...paragraph(text)]
  if (node.args.length > 0) lines.push("", "Arguments:", ...rows(node.args.map((a) => [argLabel(a), a.description] as const)))
  if (own.length > 0) lines.push("", "Options:", ...rows(own.map((o) => [optionLabel(o), optionText(o)] as const)))
  lines.push("", ...paragraph("Global options: --format, -q/--quiet, -v/--verbose, --config-dir, --data-dir, --cache-dir, -h/--help (see `akm --help`)"))
  example(lines, leafExample)
  return `${lines.join("\n")}\n`
}

/** The help text of one command of the tree. */
export const renderHelp = (node: CommandNode, version: string): string =>
  node.path.length === 0 ? rootHelp(node, version) : node.subcommands.length > 0 ? groupHelp(node) : leafHelp(node)
