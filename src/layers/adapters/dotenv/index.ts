import type { BundleAdapter } from "../../../domain/Adapter.js"
import type { RuleRow } from "../core/RuleBook.js"
import { ruleDrivenAdapter } from "../core/RuleDrivenAdapter.js"
import { DOTENV_AUTHORING, refuseDotenvCreate } from "./authoring.js"
import { dotenvExports } from "./exports.js"
import { planDotenv } from "./plan.js"
import { probeDotenv } from "./probe.js"
import { projectDotenv } from "./project.js"
import { dotenvRules } from "./rules.js"

/** Builds the adapter from a rule table, so a test can prove the table drives it (R-AD-3). */
export const makeDotenvAdapter = (rules: ReadonlyArray<RuleRow>): BundleAdapter =>
  ruleDrivenAdapter(
    {
      id: "dotenv",
      version: "1",
      writable: true,
      description: "env/ and secrets/ only: key names and secret names are indexed, values never (writes through akm env / akm secret)"
    },
    rules,
    (book) => ({
      probe: probeDotenv,
      plan: (files) => planDotenv(files, book),
      project: (item, ctx) => projectDotenv(item, ctx, book),
      authoring: DOTENV_AUTHORING,
      create: () => refuseDotenvCreate(),
      exports: (ctx) => dotenvExports(ctx, book)
    })
  )

export const dotenvAdapter: BundleAdapter = makeDotenvAdapter(dotenvRules)
