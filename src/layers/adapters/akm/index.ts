import { Effect } from "effect"
import type { BundleAdapter } from "../../../domain/Adapter.js"
import type { RuleRow } from "../core/RuleBook.js"
import { ruleDrivenAdapter } from "../core/RuleDrivenAdapter.js"
import { skillMdRules } from "../skill-md/index.js"
import { akmAuthoring, createAkm } from "./authoring.js"
import { akmExports } from "./exports.js"
import { lintAkm, lintAkmChanged } from "./lint.js"
import { planAkm } from "./plan.js"
import { probeAkm } from "./probe.js"
import { projectAkm } from "./project.js"
import { akmOwnRules } from "./rules.js"
import { typeNamed } from "./types.js"
import { markdownMemoryFacet } from "../core/MemoryFacetMarkdown.js"

const own = new Set(akmOwnRules.map((rule) => rule.code))

/**
 * The one akm rule table: akm's rows, then the SKILL.md codec's rows for
 * skills/ (Agent Skills checks; akm's frontmatter fields are welcome in
 * SKILL.md, so there is no unexpected-field row).
 */
export const akmRules: ReadonlyArray<RuleRow> = [
  ...akmOwnRules,
  ...skillMdRules("agent-skills").filter((rule) => !own.has(rule.code) && rule.code !== "unexpected-field")
]

/** Builds the adapter from a rule table, so a test can prove the table drives it (R-AD-3). */
export const makeAkmAdapter = (rules: ReadonlyArray<RuleRow>): BundleAdapter =>
  ruleDrivenAdapter(
    {
      id: "akm",
      // 2: workflows/ got runnable steps and stricter lint (invalid-step, unknown-param), memories/ a memory facet:
      // an index written by version 1 re-checks every item instead of trusting its cached lint.
      version: "2",
      writable: true,
      description: "akm's native working format: one directory per type (skills, commands, agents, knowledge, memories, workflows, scripts, env, secrets, tasks …)"
    },
    rules,
    (book) => ({
      probe: probeAkm,
      plan: (files) => planAkm(files, book),
      project: (item, ctx) => projectAkm(item, ctx, book),
      lintBundle: (ctx, items) => lintAkm(ctx, items, book),
      lintChanged: (ctx, items, changed) => lintAkmChanged(ctx, items, changed, book),
      authoring: (_bundle, target) => Effect.succeed(akmAuthoring(target)),
      create: (request, ctx) => createAkm(request, ctx, book),
      memory: markdownMemoryFacet("memories"),
      // A type akm has keeps its directory; any other format's type (OKF's Runbook, Guide …) is knowledge.
      importType: (type) => typeNamed(type) ?? "knowledge",
      exports: (ctx) => akmExports(ctx, book)
    })
  )

export const akmAdapter: BundleAdapter = makeAkmAdapter(akmRules)
