import { Effect } from "effect"
import type { AdapterRule, BundleAdapter } from "../../../domain/Adapter.js"
import { makeRuleBook } from "../akm/ruleBook.js"
import { dotenvAuthoringContext, refuseDotenvCreate } from "./authoring.js"
import { planDotenv } from "./plan.js"
import { probeDotenv } from "./probe.js"
import { projectDotenv } from "./project.js"
import { dotenvRules } from "./rules.js"

const ID = "dotenv"
const VERSION = "1"

/** Builds the adapter from a rule table, so a test can prove the table drives it (R-AD-3). */
export const makeDotenvAdapter = (rules: ReadonlyArray<AdapterRule>): BundleAdapter => {
  const book = makeRuleBook(rules)
  return {
    id: ID,
    version: VERSION,
    writable: true,
    description: "env/ and secrets/ only: key names and secret names are indexed, values never (writes through akm env / akm secret)",
    rules,
    probe: probeDotenv,
    plan: (files) => planDotenv(files, book),
    project: (item, ctx) => projectDotenv(item, ctx, book),
    authoringContext: () => Effect.succeed(dotenvAuthoringContext(ID, VERSION, book)),
    create: () => refuseDotenvCreate()
  }
}

export const dotenvAdapter: BundleAdapter = makeDotenvAdapter(dotenvRules)
