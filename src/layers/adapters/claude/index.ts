import { Effect } from "effect"
import type { BundleAdapter } from "../../../domain/Adapter.js"
import { makeRuleBook } from "../skill-md/ruleBook.js"
import type { SkillRule } from "../skill-md/rules.js"
import { claudeAuthoringContext, createClaudeItem } from "./authoring.js"
import { planClaude } from "./plan.js"
import { probeClaude } from "./probe.js"
import { lintClaudeBundle, projectClaudeItem } from "./project.js"
import { claudeRules } from "./rules.js"

const ID = "claude"
const VERSION = "1"

/** Built from a rule table so a test can prove the table drives both validation and instructions (R-AD-3). */
export const makeClaudeAdapter = (rules: ReadonlyArray<SkillRule>): BundleAdapter => {
  const book = makeRuleBook(rules)
  return {
    id: ID,
    version: VERSION,
    writable: true,
    description: "Claude Code: a project's .claude directory or a plugin (CLAUDE.md, rules, commands, subagents, skills)",
    rules,
    // It must see .claude/ and .claude-plugin/.
    includeHidden: true,
    probe: probeClaude,
    plan: planClaude(book),
    project: projectClaudeItem(book),
    lintBundle: lintClaudeBundle(book),
    authoringContext: () => Effect.succeed(claudeAuthoringContext(ID, VERSION, book)),
    create: createClaudeItem(book)
  }
}

export const claudeAdapter: BundleAdapter = makeClaudeAdapter(claudeRules)
