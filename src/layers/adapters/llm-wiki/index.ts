import { Effect } from "effect"
import type { BundleAdapter } from "../../../domain/Adapter.js"
import type { RuleRow } from "../core/RuleBook.js"
import { ruleDrivenAdapter } from "../core/RuleDrivenAdapter.js"
import { createPage, llmWikiAuthoring } from "./authoring.js"
import { SCHEMA_FILE } from "./layout.js"
import { lintLlmWiki } from "./lint.js"
import { planLlmWiki } from "./plan.js"
import { probeLlmWiki } from "./probe.js"
import { projectLlmWiki } from "./project.js"
import { llmWikiRules } from "./rules.js"

/** Builds the adapter from a rule table, so a test can prove the table drives it (R-AD-3). */
export const makeLlmWikiAdapter = (rules: ReadonlyArray<RuleRow>): BundleAdapter =>
  ruleDrivenAdapter(
    {
      id: "llm-wiki",
      version: "1",
      writable: true,
      description: "Karpathy-style LLM wiki: schema.md conventions, pages/ maintained by the model, raw/ immutable sources",
      couplingFiles: [SCHEMA_FILE]
    },
    rules,
    (book) => ({
      probe: probeLlmWiki,
      plan: (files) => planLlmWiki(files, book),
      project: (item, ctx) => projectLlmWiki(item, ctx, book),
      lintBundle: (ctx, items) => lintLlmWiki(ctx, items, book),
      // With the bundle's files, schema.md becomes guidance.
      authoring: (_bundle, _target, _op, ctx) =>
        Effect.map(
          ctx !== undefined && ctx.exists(SCHEMA_FILE) ? Effect.orElseSucceed(ctx.readText(SCHEMA_FILE), () => undefined) : Effect.succeed(undefined),
          llmWikiAuthoring
        ),
      create: (request, ctx) => createPage(request, ctx)
    })
  )

export const llmWikiAdapter: BundleAdapter = makeLlmWikiAdapter(llmWikiRules)
