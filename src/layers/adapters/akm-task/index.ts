import { Effect } from "effect"
import type { AdapterRule, BundleAdapter } from "../../../domain/Adapter.js"
import { makeRuleBook } from "../akm/ruleBook.js"
import { akmTaskAuthoringContext, createTask } from "./authoring.js"
import { planAkmTask } from "./plan.js"
import { probeAkmTask } from "./probe.js"
import { projectTaskFile } from "./project.js"
import { akmTaskRules } from "./rules.js"

const ID = "akm-task"
const VERSION = "1"

/** Builds the adapter from a rule table, so a test can prove the table drives it (R-AD-3). */
export const makeAkmTaskAdapter = (rules: ReadonlyArray<AdapterRule>): BundleAdapter => {
  const book = makeRuleBook(rules)
  return {
    id: ID,
    version: VERSION,
    writable: true,
    description: "scheduled task definitions (.yml with version 2, schedule and one target); indexed, never run or scheduled by indexing",
    rules,
    probe: probeAkmTask,
    plan: (files) => planAkmTask(files, book),
    project: (item, ctx) => Effect.map(ctx.readText(item.files[0]!), (text) => projectTaskFile(item.files[0]!, text, book)),
    authoringContext: () => Effect.succeed(akmTaskAuthoringContext(ID, VERSION, book, ["*.yml", "**/*.yml"])),
    create: (request, ctx) => createTask(request, ctx, book)
  }
}

export const akmTaskAdapter: BundleAdapter = makeAkmTaskAdapter(akmTaskRules)
