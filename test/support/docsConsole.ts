import { readdirSync, readFileSync } from "node:fs"
import { join, relative } from "node:path"

/**
 * The ```console blocks of the user docs (issue 15 item 10): `$ akm …` command
 * lines, each followed by its expected output. A block marked ```console norun
 * needs the network, a model, PostgreSQL, the real crontab or another tool; it
 * is not run here, and names the test that backs it in its `norun` line
 * (```console norun test/cli/bundle-git.test.ts). A comment
 * `<!-- console-setup: $ akm … -->` runs hidden commands at that point of the doc.
 */

export interface ConsoleCommand {
  /** The command line as written (without the `$ `). */
  readonly line: string
  /** The words after `akm`, or the special `echo $?`. */
  readonly argv: ReadonlyArray<string>
  readonly kind: "akm" | "exit-status"
  /** The expected output lines (stdout, then stderr) as written. */
  readonly expected: ReadonlyArray<string>
}

export interface ConsoleBlock {
  readonly doc: string
  /** 1-based line of the opening fence. */
  readonly line: number
  readonly norun: boolean
  /** For a norun block: the tests that back it (paths relative to the repo root). */
  readonly backedBy: ReadonlyArray<string>
  /** Hidden setup commands run before this block. */
  readonly setup: ReadonlyArray<ConsoleCommand>
  readonly commands: ReadonlyArray<ConsoleCommand>
}

/** README.md and every markdown file under docs/, in a stable order. */
export const docFiles = (repoRoot: string): ReadonlyArray<string> => {
  const out: Array<string> = [join(repoRoot, "README.md")]
  const walk = (dir: string): void => {
    for (const entry of readdirSync(dir, { withFileTypes: true }).sort((a, b) => a.name.localeCompare(b.name))) {
      if (entry.isDirectory()) walk(join(dir, entry.name))
      else if (entry.name.endsWith(".md")) out.push(join(dir, entry.name))
    }
  }
  walk(join(repoRoot, "docs"))
  return out
}

/** Splits a command line into words as a POSIX shell would for the forms the docs use: quotes, escapes, `#` comments. */
export const shellWords = (line: string): ReadonlyArray<string> => {
  const words: Array<string> = []
  let word: string | undefined
  for (let i = 0; i < line.length; i++) {
    const c = line[i]!
    if (c === "'") {
      const end = line.indexOf("'", i + 1)
      if (end < 0) throw new Error(`unterminated ' in: ${line}`)
      word = (word ?? "") + line.slice(i + 1, end)
      i = end
    } else if (c === '"') {
      let j = i + 1
      let text = ""
      while (j < line.length && line[j] !== '"') {
        if (line[j] === "\\" && j + 1 < line.length) j++
        text += line[j]
        j++
      }
      if (j >= line.length) throw new Error(`unterminated " in: ${line}`)
      word = (word ?? "") + text
      i = j
    } else if (c === "\\" && i + 1 < line.length) {
      word = (word ?? "") + line[++i]
    } else if (/\s/.test(c)) {
      if (word !== undefined) words.push(word)
      word = undefined
    } else if (c === "#" && word === undefined) {
      break
    } else {
      word = (word ?? "") + c
    }
  }
  if (word !== undefined) words.push(word)
  return words
}

const toCommand = (line: string, expected: ReadonlyArray<string>, where: string): ConsoleCommand => {
  const words = shellWords(line)
  if (words.length === 2 && words[0] === "echo" && words[1] === "$?") return { line, argv: [], kind: "exit-status", expected }
  if (words[0] !== "akm") throw new Error(`${where}: '$ ${line}' is not an akm command; mark the block \`console norun\` or move the line out of it`)
  return { line, argv: words.slice(1), kind: "akm", expected }
}

const commandsOf = (lines: ReadonlyArray<string>, where: string): ReadonlyArray<ConsoleCommand> => {
  const commands: Array<{ line: string; expected: Array<string> }> = []
  for (const text of lines) {
    if (text.startsWith("$ ")) commands.push({ line: text.slice(2), expected: [] })
    else if (commands.length === 0) throw new Error(`${where}: output before the first '$ ' line`)
    else commands[commands.length - 1]!.expected.push(text)
  }
  return commands.map((c) => {
    while (c.expected.length > 0 && c.expected[c.expected.length - 1]!.trim() === "") c.expected.pop()
    return toCommand(c.line, c.expected, where)
  })
}

const SETUP = /^<!--\s*console-setup:\s*([\s\S]*?)-->$/

export const consoleBlocks = (repoRoot: string, path: string): ReadonlyArray<ConsoleBlock> => {
  const doc = relative(repoRoot, path)
  const lines = readFileSync(path, "utf8").split("\n")
  const blocks: Array<ConsoleBlock> = []
  let setup: Array<ConsoleCommand> = []
  for (let i = 0; i < lines.length; i++) {
    const text = lines[i]!
    // A setup comment may span lines; it is read up to its closing -->.
    if (text.startsWith("<!-- console-setup:")) {
      let j = i
      while (!lines[j]!.includes("-->")) j++
      const comment = SETUP.exec(lines.slice(i, j + 1).join("\n").trim())
      if (comment === null) throw new Error(`${doc}:${i + 1}: malformed console-setup comment`)
      const body = comment[1]!.split("\n").map((l) => l.trim()).filter((l) => l !== "")
      setup.push(...commandsOf(body, `${doc}:${i + 1}`))
      i = j
      continue
    }
    const fence = /^```console(?:\s+(.*))?$/.exec(text)
    if (fence === null) {
      // Skip other fenced blocks whole, so a ``` inside them is not read as ours.
      if (/^```/.test(text)) while (++i < lines.length && !/^```\s*$/.test(lines[i]!));
      continue
    }
    const info = (fence[1] ?? "").trim().split(/\s+/).filter((w) => w !== "")
    const norun = info[0] === "norun"
    const body: Array<string> = []
    const start = i + 1
    while (++i < lines.length && !/^```\s*$/.test(lines[i]!)) body.push(lines[i]!)
    const where = `${doc}:${start}`
    blocks.push({ doc, line: start, norun, backedBy: norun ? info.slice(1) : [], setup, commands: norun ? [] : commandsOf(body, where) })
    setup = []
  }
  return blocks
}

// --- comparing output ----------------------------------------------------------------------------

/**
 * What may differ between runs and machines: durations, times, proposal ids,
 * file sizes, the node version. Runs of spaces collapse, so a table whose
 * widths follow a path or a duration still compares.
 */
export const normaliseLine = (line: string): string =>
  line
    .replace(/\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d(?:\.\d+)?(?:Z|[+-]\d\d:\d\d)/g, "<time>")
    .replace(/\b\d{4}-\d\d-\d\d \d\d:\d\d\b/g, "<time>")
    .replace(/\b\d+(?:\.\d+)? ?ms\b/g, "<ms>")
    .replace(/\b[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}\b/g, "<id>")
    .replace(/\b(?=[0-9a-f]{0,7}\d)[0-9a-f]{8}\b/g, "<id>")
    .replace(/\b\d+(?:\.\d+)? (?:B|KiB|MiB|GiB)\b/g, "<size>")
    .replace(/\(node \d+\.\d+\.\d+\)/g, "(node <version>)")
    .replace(/[ \t]{2,}/g, "  ")
    .trimEnd()

const escapeRegExp = (s: string): string => s.replace(/[.*+?^${}()|[\]\\]/g, "\\$&")

/** An expected line: `…` or `...` stands for any text (a whole `…` line for any number of lines). */
const linePattern = (expected: string): RegExp =>
  new RegExp(`^${normaliseLine(expected).split(/…|\.\.\./).map(escapeRegExp).join(".*")}$`)

const isGap = (line: string): boolean => /^\s*(?:…|\.\.\.)\s*$/.test(line)

/** Does the actual output match the expected lines? Returns undefined when it does, else a readable diff. */
export const compareOutput = (expected: ReadonlyArray<string>, actual: string): string | undefined => {
  const got = actual.replace(/\n+$/, "").split("\n").map(normaliseLine)
  const want = expected.map((line) => (isGap(line) ? undefined : linePattern(line)))
  // Backtracking match with `…` lines as gaps.
  const memo = new Map<string, boolean>()
  const match = (w: number, g: number): boolean => {
    const key = `${w},${g}`
    const known = memo.get(key)
    if (known !== undefined) return known
    let ok: boolean
    if (w === want.length) ok = g === got.length
    else if (want[w] === undefined) ok = match(w + 1, g) || (g < got.length && match(w, g + 1))
    else ok = g < got.length && want[w]!.test(got[g]!) && match(w + 1, g + 1)
    memo.set(key, ok)
    return ok
  }
  if (match(0, 0)) return undefined
  return `expected:\n${expected.map(normaliseLine).join("\n")}\n\nactual (normalised):\n${got.join("\n")}`
}

/** Numbers that follow sizes on disk or the clock: only their type is compared. */
const VOLATILE_NUMBERS = new Set(["bytes", "id"])


/**
 * A pretty JSON result shown in a doc (often with compact arrays and `…` in
 * long strings) against the actual JSON: every key shown must be there with
 * an equal value; strings compare as lines, `…` standing for any text.
 */
export const compareJson = (expected: unknown, actual: unknown, at = "$"): string | undefined => {
  if (typeof expected === "string") {
    return typeof actual === "string" && linePattern(expected.replace(/\n/g, "\\n")).test(normaliseLine(actual.replace(/\n/g, "\\n"))) ? undefined : `${at}: expected ${JSON.stringify(expected)}, got ${JSON.stringify(actual).slice(0, 400)}`
  }
  if (typeof expected === "number") {
    const key = at.slice(at.lastIndexOf(".") + 1)
    return typeof actual === "number" && (VOLATILE_NUMBERS.has(key) || actual === expected) ? undefined : `${at}: expected ${expected}, got ${JSON.stringify(actual)}`
  }
  if (Array.isArray(expected)) {
    // A last element "…" stands for more elements: the shown ones must then be the first.
    const open = expected.length > 0 && expected[expected.length - 1] === "…"
    const shown = open ? expected.slice(0, -1) : expected
    if (!Array.isArray(actual) || (open ? actual.length < shown.length : actual.length !== shown.length)) return `${at}: expected ${shown.length}${open ? " or more" : ""} elements, got ${JSON.stringify(actual).slice(0, 400)}`
    for (let i = 0; i < shown.length; i++) {
      const problem = compareJson(shown[i], actual[i], `${at}[${i}]`)
      if (problem !== undefined) return problem
    }
    return undefined
  }
  if (expected !== null && typeof expected === "object") {
    if (actual === null || typeof actual !== "object" || Array.isArray(actual)) return `${at}: expected an object, got ${JSON.stringify(actual)}`
    for (const [key, value] of Object.entries(expected)) {
      if (!(key in actual)) return `${at}.${key}: missing`
      const problem = compareJson(value, (actual as Record<string, unknown>)[key], `${at}.${key}`)
      if (problem !== undefined) return problem
    }
    return undefined
  }
  return expected === actual ? undefined : `${at}: expected ${JSON.stringify(expected)}, got ${JSON.stringify(actual)}`
}

/** The expected lines as one JSON document, when they are one spread over several lines. */
export const expectedJson = (expected: ReadonlyArray<string>): unknown => {
  if (expected.length < 2 || !expected[0]!.startsWith("{")) return undefined
  try {
    return JSON.parse(expected.join("\n"))
  } catch {
    return undefined
  }
}
