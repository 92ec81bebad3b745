import type { BundleAdapter } from "../../../domain/Adapter.js"
import type { RuleRow } from "../core/RuleBook.js"
import { ruleDrivenAdapter } from "../core/RuleDrivenAdapter.js"
import { createOpenCodeItem, OPENCODE_AUTHORING } from "./authoring.js"
import { planOpenCode } from "./plan.js"
import { probeOpenCode } from "./probe.js"
import { projectOpenCodeItem } from "./project.js"
import { openCodeRules } from "./rules.js"

/** Built from a rule table so a test can prove the table drives both validation and instructions (R-AD-3). */
export const makeOpenCodeAdapter = (rules: ReadonlyArray<RuleRow>): BundleAdapter =>
  ruleDrivenAdapter(
    {
      id: "opencode",
      version: "1",
      writable: true,
      description: "OpenCode: AGENTS.md with agent, command and skill directories (singular or plural, also under .opencode/)",
      // Project files live under .opencode/.
      includeHidden: true
    },
    rules,
    (book) => ({
      probe: probeOpenCode,
      plan: planOpenCode(book),
      project: projectOpenCodeItem(book),
      authoring: OPENCODE_AUTHORING,
      create: createOpenCodeItem(book)
    })
  )

export const opencodeAdapter: BundleAdapter = makeOpenCodeAdapter(openCodeRules)
