import { Effect } from "effect"
import type { BundleAdapter } from "../../../domain/Adapter.js"
import type { RuleRow } from "../core/RuleBook.js"
import { ruleDrivenAdapter } from "../core/RuleDrivenAdapter.js"
import { planFiles } from "./plan.js"
import { projectFile } from "./project.js"
import { genericFilesRules } from "./rules.js"

/**
 * The fallback adapter (spec 03 "generic-files"): any folder, read-only.
 * Markdown and text are documents, scripts are scripts, the rest are files.
 * Its probe never matches: the registry picks it when nothing else does
 * (spec 03 §1.2) or when a bundle's config names it.
 */
export const makeGenericFilesAdapter = (rules: ReadonlyArray<RuleRow>): BundleAdapter =>
  ruleDrivenAdapter(
    {
      id: "generic-files",
      version: "1",
      writable: false,
      description: "Any folder, read-only: markdown and text documents, scripts described by their leading comments, other files by name"
    },
    rules,
    (book) => ({ probe: () => Effect.succeed(false), plan: planFiles(book), project: projectFile(book) })
  )

export const genericFilesAdapter: BundleAdapter = makeGenericFilesAdapter(genericFilesRules)
