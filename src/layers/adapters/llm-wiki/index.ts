import { Effect } from "effect"
import type { AdapterRule, BundleAdapter, BundleInfo, ValidateContext } from "../../../domain/Adapter.js"
import { makeRuleBook } from "../akm/ruleBook.js"
import { createPage, llmWikiAuthoringContext } from "./authoring.js"
import { SCHEMA_FILE } from "./layout.js"
import { lintLlmWiki } from "./lint.js"
import { planLlmWiki } from "./plan.js"
import { probeLlmWiki } from "./probe.js"
import { projectLlmWiki } from "./project.js"
import { llmWikiRules } from "./rules.js"

const ID = "llm-wiki"
const VERSION = "1"

/** Builds the adapter from a rule table, so a test can prove the table drives it (R-AD-3). */
export const makeLlmWikiAdapter = (rules: ReadonlyArray<AdapterRule>): BundleAdapter => {
  const book = makeRuleBook(rules)
  return {
    id: ID,
    version: VERSION,
    writable: true,
    description: "Karpathy-style LLM wiki: schema.md conventions, pages/ maintained by the model, raw/ immutable sources",
    rules,
    couplingFiles: [SCHEMA_FILE],
    probe: probeLlmWiki,
    plan: (files) => planLlmWiki(files, book),
    project: (item, ctx) => projectLlmWiki(item, ctx, book),
    lintBundle: (ctx, items) => lintLlmWiki(ctx, items, book),
    // `ctx` is an optional extra beyond the contract: with it, schema.md becomes guidance.
    authoringContext: (_bundle: BundleInfo, _target: string, _op: "create" | "update" | "consolidate", ctx?: ValidateContext) =>
      Effect.gen(function* () {
        const schema = ctx !== undefined && ctx.exists(SCHEMA_FILE) ? yield* Effect.orElseSucceed(ctx.readText(SCHEMA_FILE), () => undefined) : undefined
        return llmWikiAuthoringContext(ID, VERSION, book, schema)
      }),
    create: (request, ctx) => createPage(request, ctx)
  }
}

export const llmWikiAdapter: BundleAdapter = makeLlmWikiAdapter(llmWikiRules)
