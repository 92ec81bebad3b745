import { Effect } from "effect"
import type { BundleAdapter } from "../../../domain/Adapter.js"
import { makeRuleBook } from "../skill-md/ruleBook.js"
import type { SkillRule } from "../skill-md/rules.js"
import { createOpenCodeItem, openCodeAuthoringContext } from "./authoring.js"
import { planOpenCode } from "./plan.js"
import { probeOpenCode } from "./probe.js"
import { projectOpenCodeItem } from "./project.js"
import { openCodeRules } from "./rules.js"

const ID = "opencode"
const VERSION = "1"

/** Built from a rule table so a test can prove the table drives both validation and instructions (R-AD-3). */
export const makeOpenCodeAdapter = (rules: ReadonlyArray<SkillRule>): BundleAdapter => {
  const book = makeRuleBook(rules)
  return {
    id: ID,
    version: VERSION,
    writable: true,
    description: "OpenCode: AGENTS.md with agent, command and skill directories (singular or plural, also under .opencode/)",
    rules,
    // Project files live under .opencode/.
    includeHidden: true,
    probe: probeOpenCode,
    plan: planOpenCode(book),
    project: projectOpenCodeItem(book),
    authoringContext: () => Effect.succeed(openCodeAuthoringContext(ID, VERSION, book)),
    create: createOpenCodeItem(book)
  }
}

export const opencodeAdapter: BundleAdapter = makeOpenCodeAdapter(openCodeRules)
