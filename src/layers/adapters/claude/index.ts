import type { BundleAdapter } from "../../../domain/Adapter.js"
import type { RuleRow } from "../core/RuleBook.js"
import { ruleDrivenAdapter } from "../core/RuleDrivenAdapter.js"
import { CLAUDE_AUTHORING, createClaudeItem } from "./authoring.js"
import { planClaude } from "./plan.js"
import { probeClaude } from "./probe.js"
import { lintClaudeBundle, projectClaudeItem } from "./project.js"
import { claudeRules } from "./rules.js"

/** Built from a rule table so a test can prove the table drives both validation and instructions (R-AD-3). */
export const makeClaudeAdapter = (rules: ReadonlyArray<RuleRow>): BundleAdapter =>
  ruleDrivenAdapter(
    {
      id: "claude",
      version: "1",
      writable: true,
      description: "Claude Code: a project's .claude directory or a plugin (CLAUDE.md, rules, commands, subagents, skills)",
      // It must see .claude/ and .claude-plugin/.
      includeHidden: true
    },
    rules,
    (book) => ({
      probe: probeClaude,
      plan: planClaude(book),
      project: projectClaudeItem(book),
      lintBundle: lintClaudeBundle(book),
      authoring: CLAUDE_AUTHORING,
      create: createClaudeItem(book)
    })
  )

export const claudeAdapter: BundleAdapter = makeClaudeAdapter(claudeRules)
