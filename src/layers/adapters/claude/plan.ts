import type { FileMeta, ItemPlan, PlanResult } from "../../../domain/Adapter.js"
import type { RuleBook } from "../skill-md/ruleBook.js"
import { planSkills, type SkillParents } from "../skill-md/skillDirectory.js"
import { withoutMarkdownExtension } from "../skill-md/paths.js"

export const CLAUDE_SKILL_PARENTS: SkillParents = ["skills", ".claude/skills"]

export type ClaudeKind = "instruction" | "rule" | "command" | "agent"

/**
 * Which Claude Code file a path is. Only these are items: settings.json,
 * hooks, .mcp.json and other tool configuration are never indexed.
 */
export const claudeKindOf = (path: string): ClaudeKind | undefined => {
  if (path === "CLAUDE.md" || path === "CLAUDE.local.md" || path === ".claude/CLAUDE.md") return "instruction"
  if (!path.endsWith(".md")) return undefined
  if (/^(?:\.claude\/)?rules\/./.test(path)) return "rule"
  if (/^(?:\.claude\/)?commands\/./.test(path)) return "command"
  if (/^(?:\.claude\/)?agents\/./.test(path)) return "agent"
  return undefined
}

/** Concept id = path without `.md` (skills: their directory, references inside them as in agent-skills). */
export const planClaude = (book: RuleBook) => (files: ReadonlyArray<FileMeta>): PlanResult => {
  const skills = planSkills(files, CLAUDE_SKILL_PARENTS, book)
  const items: Array<ItemPlan> = [...skills.items]
  for (const { path } of files) {
    if (skills.claimed.has(path)) continue
    const kind = claudeKindOf(path)
    if (kind !== undefined) items.push({ conceptId: withoutMarkdownExtension(path), files: [path], kind })
  }
  return { items, diagnostics: skills.diagnostics }
}
