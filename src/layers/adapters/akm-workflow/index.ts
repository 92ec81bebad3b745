import { Effect } from "effect"
import type { AdapterRule, BundleAdapter } from "../../../domain/Adapter.js"
import { makeRuleBook } from "../akm/ruleBook.js"
import { akmWorkflowAuthoringContext, createWorkflow } from "./authoring.js"
import { planAkmWorkflow } from "./plan.js"
import { probeAkmWorkflow } from "./probe.js"
import { projectAkmWorkflow } from "./project.js"
import { akmWorkflowRules } from "./rules.js"

const ID = "akm-workflow"
const VERSION = "1"

/** Builds the adapter from a rule table, so a test can prove the table drives it (R-AD-3). */
export const makeAkmWorkflowAdapter = (rules: ReadonlyArray<AdapterRule>): BundleAdapter => {
  const book = makeRuleBook(rules)
  return {
    id: ID,
    version: VERSION,
    writable: true,
    description: "workflow documents: markdown with type: workflow, declared steps and typed params, one ## section per step",
    rules,
    probe: probeAkmWorkflow,
    plan: (files) => planAkmWorkflow(files, book),
    project: (item, ctx) => projectAkmWorkflow(item, ctx, book),
    authoringContext: () => Effect.succeed(akmWorkflowAuthoringContext(ID, VERSION, book, ["*.md", "**/*.md"])),
    create: (request, ctx) => createWorkflow(request, ctx, book)
  }
}

export const akmWorkflowAdapter: BundleAdapter = makeAkmWorkflowAdapter(akmWorkflowRules)
