import type { AdapterRule, BundleAdapter } from "../../../domain/Adapter.js"
import { createConcept, okfAuthoringContext } from "./authoring.js"
import { lintOkfBundle } from "./lint.js"
import { planConcepts } from "./plan.js"
import { probeOkf } from "./probe.js"
import { projectConcept } from "./project.js"
import { ruleBook } from "./ruleBook.js"
import { okfRules } from "./rules.js"

export { updateConcept, type ConceptChanges } from "./update.js"

/**
 * The Open Knowledge Format v0.2 adapter (spec 03 "okf"): the lenient
 * markdown baseline, writable. Built from a rule table so a test can hand it a
 * changed table and see both enforcement and instructions follow (R-AD-3).
 */
export const makeOkfAdapter = (rules: ReadonlyArray<AdapterRule>): BundleAdapter => {
  const book = ruleBook(rules)
  const identity = { id: "okf", version: "1" }
  return {
    ...identity,
    writable: true,
    description: "Open Knowledge Format v0.2: markdown concepts with YAML frontmatter, reserved index.md/log.md",
    rules,
    // Concepts live at any depth, hidden folders included (spec 03 "okf").
    includeHidden: true,
    probe: probeOkf,
    plan: planConcepts(book),
    project: projectConcept(book),
    lintBundle: lintOkfBundle(book),
    authoringContext: okfAuthoringContext(identity, book),
    create: createConcept(book)
  }
}

export const okfAdapter: BundleAdapter = makeOkfAdapter(okfRules)
