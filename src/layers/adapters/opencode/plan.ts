import type { FileMeta, ItemPlan, PlanResult } from "../../../domain/Adapter.js"
import { withoutMarkdownExtension } from "../skill-md/paths.js"
import type { RuleBook } from "../skill-md/ruleBook.js"
import { planSkills, type SkillParents } from "../skill-md/skillDirectory.js"

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

export const planOpenCode = (book: RuleBook) => (files: ReadonlyArray<FileMeta>): PlanResult => {
  const skills = planSkills(files, OPENCODE_SKILL_PARENTS, book)
  const items: Array<ItemPlan> = [...skills.items]
  for (const { path } of files) {
    if (skills.claimed.has(path)) continue
    const kind = openCodeKindOf(path)
    if (kind !== undefined) items.push({ conceptId: withoutMarkdownExtension(path), files: [path], kind })
  }
  return { items, diagnostics: skills.diagnostics }
}
