import { Effect } from "effect"
import type { BundleAdapter } from "../../../domain/Adapter.js"
import type { RuleRow } from "../core/RuleBook.js"
import { ruleDrivenAdapter } from "../core/RuleDrivenAdapter.js"
import { createConcept, okfAuthoring } from "./authoring.js"
import { okfListings } from "./indexListing.js"
import { lintOkfBundle } from "./lint.js"
import { planConcepts } from "./plan.js"
import { probeOkf } from "./probe.js"
import { projectConcept } from "./project.js"
import { okfRules } from "./rules.js"
import { markdownMemoryFacet } from "../core/MemoryFacetMarkdown.js"

export { updateConcept, type ConceptChanges } from "./update.js"

/**
 * The Open Knowledge Format v0.2 adapter (spec 03 "okf"): the lenient
 * markdown baseline, writable. Built from a rule table so a test can hand it a
 * changed table and see both enforcement and instructions follow (R-AD-3).
 */
export const makeOkfAdapter = (rules: ReadonlyArray<RuleRow>): BundleAdapter =>
  ruleDrivenAdapter(
    {
      id: "okf",
      version: "1",
      writable: true,
      description: "Open Knowledge Format v0.2: markdown concepts with YAML frontmatter, reserved index.md/log.md",
      // Concepts live at any depth, hidden folders included (spec 03 "okf").
      includeHidden: true
    },
    rules,
    (book) => ({
      probe: probeOkf,
      plan: planConcepts(book),
      project: projectConcept(book),
      lintBundle: lintOkfBundle(book),
      authoring: (bundle, target, op) => Effect.succeed(okfAuthoring(book, bundle, target, op)),
      create: createConcept(book),
      listings: okfListings,
      memory: markdownMemoryFacet("memories")
    })
  )

export const okfAdapter: BundleAdapter = makeOkfAdapter(okfRules)
