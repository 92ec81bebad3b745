import type { FileMeta, PlanResult } from "../../../domain/Adapter.js"
import { withoutMarkdownExtension } from "../core/Paths.js"
import type { RuleBook } from "../core/RuleBook.js"
import { planSkills, type SkillParents } from "../skill-md/index.js"

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
export const planClaude = (book: RuleBook) => (files: ReadonlyArray<FileMeta>): PlanResult =>
  planSkills(files, CLAUDE_SKILL_PARENTS, book, (path) => {
    const kind = claudeKindOf(path)
    return kind === undefined ? undefined : { conceptId: withoutMarkdownExtension(path), files: [path], kind }
  })
