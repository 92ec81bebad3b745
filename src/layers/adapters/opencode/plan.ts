import type { FileMeta, PlanResult } from "../../../domain/Adapter.js"
import { withoutMarkdownExtension } from "../core/Paths.js"
import type { RuleBook } from "../core/RuleBook.js"
import { planSkills, type SkillParents } from "../skill-md/index.js"

export const OPENCODE_SKILL_PARENTS: SkillParents = ["skill", "skills", ".opencode/skill", ".opencode/skills"]

export type OpenCodeKind = "instruction" | "agent" | "command"

/** AGENTS.md, agent(s)/ and command(s)/ markdown, at the root or under .opencode/. opencode.json and plugins are never items. */
export const openCodeKindOf = (path: string): OpenCodeKind | undefined => {
  if (path === "AGENTS.md") return "instruction"
  if (!path.endsWith(".md")) return undefined
  if (/^(?:\.opencode\/)?agents?\/./.test(path)) return "agent"
  if (/^(?:\.opencode\/)?commands?\/./.test(path)) return "command"
  return undefined
}

export const planOpenCode = (book: RuleBook) => (files: ReadonlyArray<FileMeta>): PlanResult =>
  planSkills(files, OPENCODE_SKILL_PARENTS, book, (path) => {
    const kind = openCodeKindOf(path)
    return kind === undefined ? undefined : { conceptId: withoutMarkdownExtension(path), files: [path], kind }
  })
