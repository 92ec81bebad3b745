import { FileSystem } from "@effect/platform/FileSystem"
import { Effect } from "effect"
import * as path from "node:path"
import type { SectionId } from "../../domain/brief/Brief.js"
import { valueOf, type ItemKind } from "../../domain/brief/Value.js"
import { fieldText, type LedgerRecord } from "../../domain/ledger/index.js"
import { ruleSections } from "../../domain/project/RuleFile.js"
import { CONTRACT_PATH, parseContract } from "../../domain/project/Routers.js"
import { BundleFiles } from "../../services/BundleFiles.js"
import type { ProjectTarget } from "../ledger/projectBundle.js"
import { loadLedger } from "../ledger/store.js"
import { readOptional } from "../project/files.js"
import { loadRules } from "../project/rules.js"

/** An artifact before its tokens are counted. */
export interface RawItem {
  readonly path: string
  readonly ref: string
  readonly title: string
  readonly kind: ItemKind
  readonly section: SectionId
  readonly score: number
  readonly tags: ReadonlyArray<string>
  readonly content: string
  readonly pointer: string
}

/** Files the brief never lists: itself, and files generated from other artifacts. */
const GENERATED = new Set([".ai/BRIEF.md", ".ai/index.json"])

/** `.md` files under a folder of the project, sorted; a missing folder is none. */
const markdownUnder = (target: ProjectTarget, dir: string) =>
  Effect.gen(function* () {
    const fs = yield* FileSystem
    const found: Array<string> = []
    // A symlinked folder can lead back up the tree: stop at a depth no real corpus reaches.
    const visit = (rel: string, depth = 0): Effect.Effect<void> =>
      Effect.gen(function* () {
        if (depth > 24) return
        const names = yield* Effect.orElseSucceed(fs.readDirectory(path.join(target.root, rel)), () => [] as Array<string>)
        for (const name of names.sort()) {
          if (name.startsWith(".")) continue
          const child = `${rel}/${name}`
          const info = yield* Effect.option(fs.stat(path.join(target.root, child)))
          if (info._tag === "None") continue
          if (info.value.type === "Directory") yield* visit(child, depth + 1)
          else if (name.endsWith(".md") && !GENERATED.has(child)) found.push(child)
        }
      })
    yield* visit(dir)
    return found.sort()
  })

const oneLine = (text: string): string => text.replace(/\s+/g, " ").trim()
const clip = (text: string, max: number): string => (text.length <= max ? text : `${text.slice(0, max - 1).trimEnd()}…`)
const pointerOf = (title: string, p: string): string => `- ${clip(oneLine(title), 120)} — \`${p}\``

/** A document's first `# ` heading, else its file name. */
const titleOf = (p: string, text: string): string => /^#[ \t]+(.+?)[ \t#]*$/m.exec(text)?.[1]?.trim() ?? path.basename(p, ".md")

/** The text after the first `# ` heading (and any frontmatter). */
const bodyOf = (text: string): string => text.replace(/^---\n[\s\S]*?\n---\n/, "").replace(/^[\s\S]*?^#[ \t]+.*$/m, "").trim()

/** The first two paragraphs (the brief's "two paragraphs. Never more"). */
const twoParagraphs = (text: string): string => text.split(/\n\s*\n/).map((p) => p.trim()).filter((p) => p !== "" && !p.startsWith("#")).slice(0, 2).join("\n\n")

const docItem = (p: string, text: string): RawItem => {
  const title = titleOf(p, text)
  const base = { path: p, ref: "", title, pointer: pointerOf(title, p) }
  if (p.startsWith("docs/business/")) return { ...base, kind: "business", section: "business", score: valueOf("business"), tags: ["business"], content: `### ${title}\n\n${bodyOf(text)}\n\n(\`${p}\`)` }
  if (p.startsWith("docs/adr/")) return { ...base, kind: "decision", section: "map", score: valueOf("decision"), tags: ["adr", "decision"], content: `- Why: ${clip(oneLine(title), 120)} — \`${p}\`` }
  if (p === "context/stack.md") return { ...base, kind: "map", section: "map", score: valueOf("map"), tags: ["map"], content: `- Dependencies and the decisions and records that mention them — \`${p}\`` }
  if (p === "context/components.md") return { ...base, kind: "map", section: "map", score: valueOf("map"), tags: ["map"], content: `- Components, one line each — \`${p}\`` }
  if (p.startsWith("memory/")) return { ...base, kind: "memory", section: "pointers", score: valueOf("memory"), tags: ["memory"], content: base.pointer }
  return { ...base, kind: "doc", section: "pointers", score: valueOf("doc"), tags: ["doc"], content: base.pointer }
}

const field = (r: LedgerRecord, key: string): string => oneLine(fieldText(r, key) ?? "")

/** An open question: no answer yet (empty, "open", "TBD", "?"). */
export const isOpen = (r: LedgerRecord): boolean => /^(|open|tbd|unknown|unanswered|\?+|-)$/i.test(field(r, "answer"))

const recordItem = (p: string, r: LedgerRecord): RawItem => {
  const base = { path: p, ref: r.id, title: r.title, pointer: pointerOf(r.title, p) }
  const n = r.occurrences.length
  const module = field(r, "module")
  switch (r.kind) {
    case "failure":
      if (n >= 2) {
        const lines = [`### ${r.title} (seen ${n} times)`, "", `- Symptom: ${field(r, "symptom")}`, `- Fix: ${field(r, "fix")}`, `- Root cause: ${field(r, "root_cause")}`, `- Record: \`${p}\``]
        return { ...base, kind: "failure", section: "failures", score: valueOf("failure", n), tags: ["failure", ...(module === "" ? [] : [module])], content: lines.join("\n") }
      }
      return { ...base, kind: "failure-once", section: "pointers", score: valueOf("failure-once"), tags: ["failure", ...(module === "" ? [] : [module])], content: base.pointer }
    case "question": {
      if (isOpen(r)) {
        const blocks = field(r, "blocks")
        return { ...base, kind: "question", section: "questions", score: valueOf("question"), tags: ["question"], content: `- **${clip(field(r, "asked") || r.title, 300)}**${blocks === "" ? "" : ` — blocks: ${clip(blocks, 200)}`} (\`${p}\`)` }
      }
      return { ...base, kind: "question-answered", section: "pointers", score: valueOf("question-answered"), tags: ["question"], content: base.pointer }
    }
    case "decision":
      return { ...base, kind: "decision", section: "map", score: valueOf("decision"), tags: ["decision"], content: `- Why: ${clip(oneLine(r.title), 120)}${field(r, "what") === "" ? "" : ` (${clip(field(r, "what"), 160)})`} — \`${p}\`` }
    case "surprise":
    case "requirement":
    case "drift":
      return { ...base, kind: r.kind, section: "pointers", score: valueOf(r.kind), tags: [r.kind], content: base.pointer }
    default:
      return { ...base, kind: "doc", section: "pointers", score: valueOf("doc"), tags: [r.kind], content: base.pointer }
  }
}

/**
 * Every artifact the brief and index.json know: the contract's identity,
 * rules, ledger records, and the prose under docs/, memory/ and context/.
 * Broken rules and records are left out here (ledger verify and rules list
 * report them); their names come back as warnings.
 */
export const collectItems = (target: ProjectTarget) =>
  Effect.gen(function* () {
    const files = yield* BundleFiles
    const items: Array<RawItem> = []
    const warnings: Array<string> = []
    let name = path.basename(target.root)

    const contract = yield* Effect.orElseSucceed(readOptional(target, CONTRACT_PATH), () => undefined)
    const parsed = contract === undefined ? undefined : parseContract(contract)
    if (parsed !== undefined && "contract" in parsed) {
      name = parsed.contract.name
      const identity = parsed.contract.sections.find((s) => /^identity$/i.test(s.heading))!
      items.push({ path: CONTRACT_PATH, ref: "identity", title: `${name}: identity`, kind: "identity", section: "identity", score: valueOf("identity"), tags: ["identity"], content: twoParagraphs(identity.text), pointer: pointerOf(`What ${name} is`, CONTRACT_PATH) })
    } else {
      const readme = yield* Effect.orElseSucceed(readOptional(target, "README.md"), () => undefined)
      if (readme !== undefined) {
        name = /^#[ \t]+(.+?)[ \t#]*$/m.exec(readme)?.[1]?.trim() ?? name
        items.push({ path: "README.md", ref: "identity", title: `${name}: identity`, kind: "identity", section: "identity", score: valueOf("identity"), tags: ["identity"], content: twoParagraphs(bodyOf(readme)), pointer: pointerOf(`What ${name} is`, "README.md") })
      }
    }

    const rules = yield* loadRules(target)
    for (const p of rules.problems) warnings.push(`${p.path}:${p.line}: ${p.message} (left out of the brief)`)
    for (const rule of rules.rules) {
      const superseded = rule.supersededBy !== undefined
      const mandatory = ruleSections(rule.body).find((s) => /mandatory/i.test(s.heading))?.text ?? bodyOf(rule.body)
      const scope = rule.scope.length === 0 ? "" : `Scope: ${rule.scope.map((s) => `\`${s}\``).join(", ")} · `
      items.push({
        path: rule.path,
        ref: rule.id,
        title: rule.title,
        kind: superseded ? "rule-superseded" : "rule",
        section: superseded ? "pointers" : "constraints",
        score: valueOf(superseded ? "rule-superseded" : "rule"),
        tags: ["rule", ...rule.scope],
        content: `### ${rule.title}\n\n${scope}\`${rule.path}\`\n\n${mandatory.trim()}`,
        pointer: pointerOf(superseded ? `${rule.title} (superseded by ${rule.supersededBy})` : rule.title, rule.path)
      })
    }

    for (const loaded of yield* loadLedger(target.root)) {
      if (loaded._tag === "Bad") warnings.push(`${loaded.file.path}: ${loaded.problem.message} (left out of the brief)`)
      else items.push(recordItem(loaded.file.path, loaded.record))
    }

    const docs = [...(yield* markdownUnder(target, "docs")), ...(yield* markdownUnder(target, "memory")), ...(yield* markdownUnder(target, "context")).filter((p) => p !== CONTRACT_PATH)]
    for (const p of docs) {
      const text = yield* Effect.either(files.readText(target.root, p))
      if (text._tag === "Left") warnings.push(`${p}: ${text.left.message} (left out of the brief)`)
      else items.push(docItem(p, text.right))
    }
    return { name, items, warnings }
  })
