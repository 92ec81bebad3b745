import type { BundleAdapter } from "../../../domain/Adapter.js"
import type { RuleRow } from "../core/RuleBook.js"
import { ruleDrivenAdapter } from "../core/RuleDrivenAdapter.js"
import { AKM_WORKFLOW_AUTHORING, createWorkflow } from "./authoring.js"
import { akmWorkflowExports } from "./exports.js"
import { planAkmWorkflow } from "./plan.js"
import { probeAkmWorkflow } from "./probe.js"
import { projectAkmWorkflow } from "./project.js"
import { akmWorkflowRules } from "./rules.js"

/** Builds the adapter from a rule table, so a test can prove the table drives it (R-AD-3). */
export const makeAkmWorkflowAdapter = (rules: ReadonlyArray<RuleRow>): BundleAdapter =>
  ruleDrivenAdapter(
    {
      id: "akm-workflow",
      version: "2",
      writable: true,
      description: "workflow documents: markdown with type: workflow, declared steps and typed params, one ## section per step"
    },
    rules,
    (book) => ({
      probe: probeAkmWorkflow,
      plan: (files) => planAkmWorkflow(files, book),
      project: (item, ctx) => projectAkmWorkflow(item, ctx, book),
      authoring: AKM_WORKFLOW_AUTHORING,
      create: (request, ctx) => createWorkflow(request, ctx, book),
      exports: akmWorkflowExports
    })
  )

export const akmWorkflowAdapter: BundleAdapter = makeAkmWorkflowAdapter(akmWorkflowRules)
