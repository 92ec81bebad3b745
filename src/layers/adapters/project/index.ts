import { Effect } from "effect"
import type { BundleAdapter } from "../../../domain/Adapter.js"
import type { RuleRow } from "../core/RuleBook.js"
import { ruleDrivenAdapter } from "../core/RuleDrivenAdapter.js"
import { projectSkillItem, skillMdRules } from "../skill-md/index.js"
import { createProjectItem, projectAuthoring } from "./authoring.js"
import { lintProjectBundle } from "./drift.js"
import { planProject, PROJECT_SKILL_PARENTS } from "./plan.js"
import { probeProject } from "./probe.js"
import { projectKnowledgeFile } from "./project.js"
import { projectOwnRules } from "./rules.js"
import { markdownMemoryFacet } from "../core/MemoryFacetMarkdown.js"

const own = new Set(projectOwnRules.map((rule) => rule.code))

/**
 * The one project rule table: the project's rows, then the SKILL.md codec's
 * rows for skills/ (Agent Skills checks, the spec's keys plus Claude Code's,
 * since project skills are read by agent CLIs).
 */
export const projectRules: ReadonlyArray<RuleRow> = [
  ...projectOwnRules,
  ...skillMdRules("claude").filter((rule) => !own.has(rule.code))
]

/** Builds the adapter from a rule table, so a test can prove the table drives it (R-AD-3). */
export const makeProjectAdapter = (rules: ReadonlyArray<RuleRow>): BundleAdapter =>
  ruleDrivenAdapter(
    {
      id: "project",
      version: "2",
      writable: true,
      description: "a code repository's agent knowledge: routers, rules/, docs/ (adr, business), memory/, context/, skills/, .ai/ledger records and the brief",
      includeHidden: true
    },
    rules,
    (book) => ({
      probe: probeProject,
      plan: (files) => planProject(files, book),
      project: (item, ctx) => projectSkillItem(item, ctx, { book, parents: PROJECT_SKILL_PARENTS }) ?? projectKnowledgeFile(item, ctx, book),
      authoring: (_bundle, target) => Effect.succeed(projectAuthoring(target)),
      create: (request, ctx) => createProjectItem(request, ctx, book),
      memory: markdownMemoryFacet("memory"),
      lintBundle: lintProjectBundle(book)
    })
  )

export const projectAdapter: BundleAdapter = makeProjectAdapter(projectRules)
