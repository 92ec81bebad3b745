import type { FileMeta, PlanResult } from "../../../domain/Adapter.js"
import { settlePlans, type Candidate } from "../core/ItemPlans.js"
import type { RuleBook } from "../core/RuleBook.js"
import { hiddenBySensitiveMarkers } from "../dotenv/sensitive.js"
import { planSkills } from "../skill-md/index.js"
import { isTypeDirectory, TYPE_DIRECTORIES } from "./types.js"

export const SKILL_PARENTS = ["skills"]

const isMarkdown = (path: string): boolean => path.endsWith(".md")
const stripMd = (path: string): string => path.slice(0, -".md".length)

/** The candidate item for one file outside a skill directory, or undefined when the file is not an item. */
const candidateFor = (path: string): Candidate | undefined => {
  const slash = path.indexOf("/")
  const top = slash === -1 ? "" : path.slice(0, slash)
  if (!isTypeDirectory(top)) return isMarkdown(path) ? { conceptId: stripMd(path), files: [path], kind: "knowledge" } : undefined
  const type = TYPE_DIRECTORIES[top]
  switch (type) {
    case "env":
      if (path.endsWith(".env")) return { conceptId: path.slice(0, -".env".length), files: [path], kind: "env" }
      break
    case "secret":
      // Secrets are items by file name; the file is never read.
      return { conceptId: path, files: [path], kind: "secret" }
    case "task":
      if (/\.ya?ml$/.test(path)) return { conceptId: path.replace(/\.ya?ml$/, ""), files: [path], kind: "task", rank: path.endsWith(".yml") ? 0 : 1 }
      break
    case "script":
      // Any extension stays in the id (scripts/bump-version.sh); a README beside them is knowledge.
      if (!isMarkdown(path)) return { conceptId: path, files: [path], kind: "script" }
      break
    case "skill":
      // Files in skill directories are planned by the SKILL.md codec; only loose files reach here.
      break
    default:
      if (isMarkdown(path)) return { conceptId: stripMd(path), files: [path], kind: type }
      return undefined
  }
  return isMarkdown(path) ? { conceptId: stripMd(path), files: [path], kind: "knowledge" } : undefined
}

/**
 * Paths → items: skill directories through the codec (the skill and each of
 * its markdown files), every other file by its type directory. Anything a
 * `.sensitive` marker names is left out entirely.
 */
export const planAkm = (files: ReadonlyArray<FileMeta>, book: RuleBook): PlanResult => {
  const hidden = hiddenBySensitiveMarkers(files.map((file) => file.path))
  const visible = files.filter((file) => !hidden.has(file.path))
  const planned = planSkills(visible, SKILL_PARENTS, book, candidateFor)
  const settled = settlePlans(planned.items, book)
  return { items: settled.items, diagnostics: [...planned.diagnostics, ...settled.diagnostics] }
}
