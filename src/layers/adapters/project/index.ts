import { Effect } from "effect"
import type { BundleAdapter } from "../../../domain/Adapter.js"
import { makeRuleBook } from "../skill-md/ruleBook.js"
import { skillMdRules, type SkillRule } from "../skill-md/rules.js"
import { projectReference, projectSkill, REFERENCE_KIND, SKILL_KIND } from "../skill-md/skillDirectory.js"
import { createProjectItem, projectAuthoringContext } from "./authoring.js"
import { planProject, PROJECT_SKILL_PARENTS } from "./plan.js"
import { probeProject } from "./probe.js"
import { projectKnowledgeFile } from "./project.js"
import { projectOwnRules } from "./rules.js"

const ID = "project"
const VERSION = "1"

const own = new Set(projectOwnRules.map((rule) => rule.code))

/**
 * The one project rule table: the project's rows, then the SKILL.md codec's
 * rows for skills/ (Agent Skills checks, the spec's keys plus Claude Code's,
 * since project skills are read by agent CLIs).
 */
export const projectRules: ReadonlyArray<SkillRule> = [
  ...projectOwnRules,
  ...skillMdRules("claude").filter((rule) => !own.has(rule.code))
]

/** Builds the adapter from a rule table, so a test can prove the table drives it (R-AD-3). */
export const makeProjectAdapter = (rules: ReadonlyArray<SkillRule>): BundleAdapter => {
  const book = makeRuleBook(rules)
  const skillOptions = { book, parents: PROJECT_SKILL_PARENTS }
  return {
    id: ID,
    version: VERSION,
    writable: true,
    description: "a code repository's agent knowledge: routers, rules/, docs/ (adr, business), memory/, context/, skills/, .ai/ledger records and the brief",
    rules,
    includeHidden: true,
    probe: probeProject,
    plan: (files) => planProject(files, book),
    project: (item, ctx) =>
      item.kind === SKILL_KIND ? projectSkill(item, ctx, skillOptions)
      : item.kind === REFERENCE_KIND ? projectReference(item, ctx, skillOptions)
      : projectKnowledgeFile(item, ctx, book),
    authoringContext: (_bundle, target) => Effect.succeed(projectAuthoringContext(ID, VERSION, book, target)),
    create: (request, ctx) => createProjectItem(request, ctx, book)
  }
}

export const projectAdapter: BundleAdapter = makeProjectAdapter(projectRules)
