/**
 * The benchmark corpus (spec 10 §1 "corpus"): a deterministic generator that
 * replicates the items of ../shared/bench and ../shared/corpora (or, without
 * ../shared, the project's own examples and fixtures) with unique names into
 * one akm-layout bundle of about N items. Same seed and size → byte-identical
 * tree.
 */
import { existsSync, mkdirSync, readdirSync, readFileSync, statSync, writeFileSync } from "node:fs"
import { basename, dirname, extname, join, relative } from "node:path"
import { fileURLToPath } from "node:url"
import { sharedRoot } from "./quality.js"

/** One source item: a single file under an akm type directory, or a skill directory. */
interface Template {
  readonly typeDir: string
  /** File name stem (files) or directory name (skills). */
  readonly base: string
  /** Files relative to the item: one for a file item ("" + extension), several for a skill. */
  readonly files: ReadonlyArray<{ readonly rel: string; readonly text: string }>
  readonly ext: string
}

const repo = fileURLToPath(new URL("..", import.meta.url))

const walk = (dir: string): ReadonlyArray<string> =>
  existsSync(dir)
    ? readdirSync(dir, { withFileTypes: true })
      .sort((a, b) => (a.name < b.name ? -1 : 1))
      .flatMap((e) => (e.isDirectory() ? walk(join(dir, e.name)) : e.isFile() ? [join(dir, e.name)] : []))
    : []

const TYPE_DIRS = ["agents", "commands", "knowledge", "memories", "scripts", "skills", "lessons", "facts", "workflows"]
const SKIP = new Set(["NOTICE.md", "judgments.json", "expectations.json", "LICENSE.txt", "index.md", "log.md"])
const MAX_TEMPLATE_BYTES = 64 * 1024

/** Items of an akm-layout stash: files under type directories, skills as directories with their markdown. */
const stashTemplates = (root: string): ReadonlyArray<Template> => {
  const out: Array<Template> = []
  for (const typeDir of TYPE_DIRS) {
    const dir = join(root, typeDir)
    if (!existsSync(dir)) continue
    if (typeDir === "skills") {
      for (const skill of readdirSync(dir).sort()) {
        const skillDir = join(dir, skill)
        if (!statSync(skillDir).isDirectory() || !existsSync(join(skillDir, "SKILL.md"))) continue
        const files = walk(skillDir)
          .filter((f) => f.endsWith(".md") && !SKIP.has(basename(f)) && statSync(f).size <= MAX_TEMPLATE_BYTES)
          .map((f) => ({ rel: relative(skillDir, f), text: readFileSync(f, "utf8") }))
        out.push({ typeDir, base: skill, files, ext: "" })
      }
    } else {
      for (const file of walk(dir).filter((f) => !SKIP.has(basename(f)) && statSync(f).size <= MAX_TEMPLATE_BYTES)) {
        out.push({ typeDir, base: basename(file, extname(file)), files: [{ rel: "", text: readFileSync(file, "utf8") }], ext: extname(file) })
      }
    }
  }
  return out
}

/** Markdown concepts of other layouts (OKF bundles, example notes) become knowledge items. */
const knowledgeTemplates = (root: string): ReadonlyArray<Template> =>
  walk(root)
    .filter((f) => f.endsWith(".md") && !SKIP.has(basename(f)) && statSync(f).size <= MAX_TEMPLATE_BYTES)
    .map((f) => ({ typeDir: "knowledge", base: relative(root, f).replace(/\.md$/, "").replace(/[/\\]/g, "-"), files: [{ rel: "", text: readFileSync(f, "utf8") }], ext: ".md" }))

/** Every source item, in a fixed order. */
export const templates = (): ReadonlyArray<Template> => {
  const shared = sharedRoot()
  if (existsSync(join(shared, "bench", "curate-golden"))) {
    const skills = join(shared, "corpora", "agent-skills", "skills")
    return [
      ...stashTemplates(join(shared, "bench", "curate-golden")),
      ...stashTemplates(join(shared, "bench", "ranking-baseline")),
      ...knowledgeTemplates(join(shared, "corpora", "okf", "bundles")),
      ...(existsSync(skills) ? stashTemplates(join(shared, "corpora", "agent-skills")) : [])
    ]
  }
  return [...knowledgeTemplates(join(repo, "examples", "notes")), ...stashTemplates(join(repo, "test", "fixtures", "adapters", "akm"))]
}

/** mulberry32: a small seeded PRNG, so the corpus is the same on every machine. */
const prng = (seed: number) => {
  let a = seed >>> 0
  return () => {
    a = (a + 0x6d2b79f5) >>> 0
    let t = a
    t = Math.imul(t ^ (t >>> 15), t | 1)
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61)
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296
  }
}

const vocabulary = (all: ReadonlyArray<Template>): ReadonlyArray<string> =>
  [...new Set(all.flatMap((t) => t.files.flatMap((f) => f.text.toLowerCase().match(/[a-z][a-z]{3,12}/g) ?? [])))].sort()

/** Makes a copy unique: `name:` in frontmatter gets the suffix, and a line of seeded words is appended. */
const variant = (text: string, suffix: string, words: string): string => {
  const renamed = text.startsWith("---") ? text.replace(/^(name:\s*)(.+)$/m, (_, key: string, value: string) => `${key}${value.trim().replace(/^["']|["']$/g, "")}-${suffix}`) : text
  return `${renamed.endsWith("\n") ? renamed : `${renamed}\n`}\nVariant ${suffix}: ${words}\n`
}

export interface Corpus {
  readonly dir: string
  /** Markdown/script files written (≈ items). */
  readonly files: number
  readonly templates: number
  /** Bundle-relative paths of the files, sorted: the 1% change picks from these. */
  readonly paths: ReadonlyArray<string>
}

/** Writes about `size` items into `dir` (an akm-layout bundle), deterministically from `seed`. */
export const generateCorpus = (options: { readonly dir: string; readonly size: number; readonly seed?: number }): Corpus => {
  const all = templates()
  if (all.length === 0) throw new Error("no corpus sources found")
  const random = prng(options.seed ?? 20_250_601)
  const vocab = vocabulary(all)
  const words = () => Array.from({ length: 16 }, () => vocab[Math.floor(random() * vocab.length)]!).join(" ")
  const paths: Array<string> = []
  const write = (rel: string, text: string) => {
    const abs = join(options.dir, rel)
    mkdirSync(dirname(abs), { recursive: true })
    writeFileSync(abs, text)
    paths.push(rel)
  }
  for (let i = 0; paths.length < options.size; i++) {
    const t = all[i % all.length]!
    const suffix = String(Math.floor(i / all.length) + 1).padStart(4, "0")
    if (t.typeDir === "skills") {
      for (const file of t.files) write(join("skills", `${t.base}-${suffix}`, file.rel), variant(file.text, suffix, words()))
    } else {
      write(join(t.typeDir, `${t.base}-${suffix}${t.ext}`), variant(t.files[0]!.text, suffix, words()))
    }
  }
  return { dir: options.dir, files: paths.length, templates: all.length, paths: [...paths].sort() }
}

/** Changes every hundredth file (1%): appends a line, so size and mtime change. Returns how many. */
export const touchOnePercent = (corpus: Corpus): number => {
  const chosen = corpus.paths.filter((_, i) => i % 100 === 0)
  for (const rel of chosen) writeFileSync(join(corpus.dir, rel), `${readFileSync(join(corpus.dir, rel), "utf8")}\nEdited for the reindex benchmark.\n`)
  return chosen.length
}

/**
 * Queries for the latency benchmark: words drawn from item names and
 * descriptions (so most find something) plus a share of two-word mixes.
 */
export const benchQueries = (count: number, seed = 7): ReadonlyArray<string> => {
  const all = templates()
  const random = prng(seed)
  const phrases = all.flatMap((t) => {
    const text = t.files[0]?.text ?? ""
    const description = /^description:\s*(.+)$/m.exec(text)?.[1] ?? ""
    return [t.base.replace(/[-_]+/g, " "), description].filter((p) => p.trim() !== "")
  })
  const pick = <A>(xs: ReadonlyArray<A>): A => xs[Math.floor(random() * xs.length)]!
  return Array.from({ length: count }, (_, i) => {
    const words = pick(phrases).toLowerCase().match(/[a-z0-9]+/g) ?? ["docker"]
    const n = 1 + (i % 4)
    const start = Math.floor(random() * Math.max(1, words.length - n))
    return words.slice(start, start + n).join(" ")
  })
}
