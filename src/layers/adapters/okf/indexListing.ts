import { Effect, Option } from "effect"
import type { Listing, ValidateContext } from "../../../domain/Adapter.js"
import { stringField } from "../core/Frontmatter.js"
import { displayName, readMarkdown } from "../core/MarkdownDocument.js"
import { isReservedFile } from "./concepts.js"

/**
 * `akm okf index`: every directory's `index.md` as OKF §8 describes it —
 * sections of `* [Title](url) - description`. akm owns which entries exist,
 * not their wording: an entry whose target still exists is kept verbatim
 * (a hand-edited title or description stays), an entry whose concept or
 * folder is gone is dropped, and a concept or folder without an entry is
 * added to the section named by its `type` (folders: "Subdirectories"),
 * made when missing. Every other line — prose, headings, the root's
 * `okf_version`, links elsewhere — stays where it is.
 */

const INDEX = "index.md"
const SUBDIRECTORIES = "Subdirectories"
/** A concept without a `type` is knowledge (spec 03 "okf"). */
const UNTYPED = "Concepts"

/** A concept entry to list: where it lives and what it says about itself. */
interface Entry {
  /** Bundle-relative target: a concept file, or a folder with a trailing "/". */
  readonly target: string
  readonly section: string
  readonly line: string
  readonly sortKey: string
}

const dirOf = (p: string): string => (p.includes("/") ? p.slice(0, p.lastIndexOf("/")) : "")
const baseOf = (p: string): string => p.slice(p.lastIndexOf("/") + 1)
const join = (dir: string, name: string): string => (dir === "" ? name : `${dir}/${name}`)

/** Folders akm does not list: hidden ones and dependency trees. */
const listed = (p: string): boolean => !p.split("/").some((s) => s.startsWith(".") || s === "node_modules")

/** The first sentence of a description, on one line. */
export const firstSentence = (text: string): string => {
  const flat = text.replace(/\s+/g, " ").trim()
  const match = /^(.+?[.!?])(?=\s|$)/.exec(flat)
  return match?.[1] ?? flat
}

const escapeTitle = (title: string): string => title.replace(/\s+/g, " ").trim().replace(/([[\]\\])/g, "\\$1")

/** A link URL for a bundle-relative name: spaces and parentheses encoded so the link parses. */
const urlOf = (relative: string): string => encodeURI(relative).replace(/\(/g, "%28").replace(/\)/g, "%29")

const entryLine = (title: string, url: string, description: string | undefined): string =>
  `* [${escapeTitle(title)}](${urlOf(url)})${description === undefined || description === "" ? "" : ` - ${description}`}`

const ENTRY = /^\s{0,3}[*+-]\s+\[(?:[^\]\\]|\\.)*\]\(\s*<?([^)\s>]+)>?(?:\s+"[^"]*")?\s*\)/
const HEADING = /^\s{0,3}(#{1,6})\s+(.*?)\s*#*\s*$/
const FENCE = /^\s{0,3}(```|~~~)/

/**
 * The bundle-relative target of an index entry's URL, or undefined for links
 * that leave the bundle (a scheme, a fragment only).
 */
const targetOf = (dir: string, url: string): string | undefined => {
  if (/^[a-z][a-z0-9+.-]*:/i.test(url) || url.startsWith("#")) return undefined
  let decoded: string
  try {
    decoded = decodeURI(url.replace(/[?#].*$/, ""))
  } catch {
    return undefined
  }
  const parts = decoded.startsWith("/") ? [] : dir === "" ? [] : dir.split("/")
  for (const part of decoded.split("/")) {
    if (part === "" || part === ".") continue
    if (part === "..") {
      if (parts.length === 0) return undefined
      parts.pop()
    } else parts.push(part)
  }
  const joined = parts.join("/")
  // `sub/`, `sub` and `sub/index.md` all name the folder.
  if (decoded.endsWith("/")) return `${joined}/`
  if (baseOf(joined) === INDEX) return `${dirOf(joined)}/`
  return joined
}

interface Tree {
  /** Folders that hold a concept at some depth ("" = the root), sorted. */
  readonly dirs: ReadonlyArray<string>
  readonly concepts: ReadonlyArray<string>
  readonly files: ReadonlySet<string>
}

const treeOf = (ctx: ValidateContext): Tree => {
  const concepts = ctx.files.map((f) => f.path).filter((p) => p.endsWith(".md") && !isReservedFile(p) && listed(p))
  const dirs = new Set<string>()
  for (const concept of concepts) {
    let dir = dirOf(concept)
    for (;;) {
      dirs.add(dir)
      if (dir === "") break
      dir = dirOf(dir)
    }
  }
  return { dirs: [...dirs].sort(), concepts, files: new Set(ctx.files.map((f) => f.path)) }
}

/** Does an entry's target exist: a file of the tree, or a listed folder. */
const exists = (tree: Tree, target: string): boolean =>
  target.endsWith("/") ? tree.dirs.includes(target.slice(0, -1)) || tree.files.has(`${target}${INDEX}`) : tree.files.has(target)

/** The new entries of one folder: its concepts and its listed subfolders. */
const entriesOf = (ctx: ValidateContext, tree: Tree, dir: string) =>
  Effect.gen(function* () {
    const entries: Array<Entry> = []
    for (const concept of tree.concepts.filter((c) => dirOf(c) === dir)) {
      const text = yield* Effect.option(ctx.readText(concept))
      const doc = Option.isSome(text) ? readMarkdown(text.value) : undefined
      const data = doc?.frontmatter.data
      const description = stringField(data, "description")
      const title = doc === undefined ? baseOf(concept).slice(0, -3) : displayName(doc, concept)
      entries.push({
        target: concept,
        section: stringField(data, "type") ?? UNTYPED,
        line: entryLine(title, baseOf(concept), description === undefined ? undefined : firstSentence(description)),
        sortKey: baseOf(concept)
      })
    }
    for (const sub of tree.dirs.filter((d) => d !== "" && dirOf(d) === dir)) {
      entries.push({ target: `${sub}/`, section: SUBDIRECTORIES, line: entryLine(baseOf(sub), `${baseOf(sub)}/${INDEX}`, undefined), sortKey: baseOf(sub) })
    }
    return entries
  })

const byKey = (a: Entry, b: Entry): number => (a.sortKey < b.sortKey ? -1 : a.sortKey > b.sortKey ? 1 : 0)

/** Section order for new sections: concept types alphabetically, folders last. */
const sectionOrder = (a: string, b: string): number =>
  a === SUBDIRECTORIES ? 1 : b === SUBDIRECTORIES ? -1 : a < b ? -1 : a > b ? 1 : 0

/** Lines of a text without their terminators (a final newline gives no extra line). */
const linesOf = (text: string): Array<string> => {
  const lines = text.replace(/\r\n/g, "\n").split("\n")
  if (lines.at(-1) === "") lines.pop()
  return lines
}

/** The index.md of one folder: the current text with entries dropped and added as described above. */
const renderIndex = (dir: string, current: string | undefined, wanted: ReadonlyArray<Entry>, tree: Tree): string => {
  const lines = current === undefined ? [] : linesOf(current)
  const seen = new Set<string>()
  const kept: Array<string> = []
  // Headings of sections that lost an entry: removed again when nothing else is left under them.
  const emptied = new Set<number>()
  let fence = false
  let frontmatter = lines[0]?.trim() === "---"
  let heading = -1
  lines.forEach((line, i) => {
    if (frontmatter) {
      kept.push(line)
      if (i > 0 && line.trim() === "---") frontmatter = false
      return
    }
    if (FENCE.test(line)) fence = !fence
    if (!fence && HEADING.test(line)) heading = kept.length
    const match = fence ? null : ENTRY.exec(line)
    const found = match === null ? undefined : targetOf(dir, match[1]!)
    const target = found !== undefined && tree.dirs.includes(found) ? `${found}/` : found
    if (target !== undefined && (target.endsWith(".md") || target.endsWith("/")) && !exists(tree, target)) {
      if (heading >= 0) emptied.add(heading)
      return
    }
    if (target !== undefined) seen.add(target)
    kept.push(line)
  })
  // Drop headings left with only blank lines under them (their entries all went away).
  const out: Array<string> = []
  for (let i = 0; i < kept.length; i++) {
    if (emptied.has(i)) {
      let j = i + 1
      while (j < kept.length && kept[j]!.trim() === "") j++
      if (j === kept.length || HEADING.test(kept[j]!)) {
        i = j - 1
        continue
      }
    }
    out.push(kept[i]!)
  }
  const missing = wanted.filter((e) => !seen.has(e.target))
  const sections = [...new Set(missing.map((e) => e.section))].sort(sectionOrder)
  for (const section of sections) {
    const add = missing.filter((e) => e.section === section).sort(byKey).map((e) => e.line)
    const at = out.findIndex((line) => HEADING.exec(line)?.[2] === section)
    if (at < 0) {
      while (out.length > 0 && out.at(-1)!.trim() === "") out.pop()
      if (out.length > 0) out.push("")
      out.push(`# ${section}`, "", ...add)
      continue
    }
    let end = at + 1
    while (end < out.length && !HEADING.test(out[end]!)) end++
    let last = -1
    for (let k = at + 1; k < end; k++) if (ENTRY.test(out[k]!)) last = k
    if (last >= 0) out.splice(last + 1, 0, ...add)
    else out.splice(at + 1, 0, "", ...add, ...(at + 1 < out.length && out[at + 1]!.trim() !== "" ? [""] : []))
  }
  while (out.length > 0 && out.at(-1)!.trim() === "") out.pop()
  return out.length === 0 ? "" : `${out.join("\n")}\n`
}

/** Every listed folder's index.md as it should read now (the okf adapter's `listings` facet). */
export const okfListings = (ctx: ValidateContext): Effect.Effect<ReadonlyArray<Listing>> =>
  Effect.gen(function* () {
    const tree = treeOf(ctx)
    const listings: Array<Listing> = []
    for (const dir of tree.dirs) {
      const path = join(dir, INDEX)
      const current = ctx.exists(path) ? yield* Effect.option(ctx.readText(path)) : Option.none()
      const wanted = yield* entriesOf(ctx, tree, dir)
      listings.push({ path, text: renderIndex(dir, Option.getOrUndefined(current), wanted, tree) })
    }
    return listings
  })
