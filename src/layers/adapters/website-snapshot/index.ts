import type { BundleAdapter } from "../../../domain/Adapter.js"
import type { RuleRow } from "../core/RuleBook.js"
import { ruleDrivenAdapter } from "../core/RuleDrivenAdapter.js"
import { lintSnapshot } from "./lint.js"
import { MANIFEST_PATH } from "./manifest.js"
import { planPages } from "./plan.js"
import { probeWebsiteSnapshot } from "./probe.js"
import { projectPage } from "./project.js"
import { websiteSnapshotRules } from "./rules.js"

/**
 * Crawled web pages (spec 03 "website-snapshot"), read-only: a snapshot
 * directory of markdown pages plus the crawler's `manifest.json`.
 */
export const makeWebsiteSnapshotAdapter = (rules: ReadonlyArray<RuleRow>): BundleAdapter =>
  ruleDrivenAdapter(
    {
      id: "website-snapshot",
      version: "1",
      writable: false,
      description: "A crawled website: markdown pages listed in manifest.json with their source URLs and fetch times",
      // Every page's projection reads the manifest (titles, URLs), so a manifest change rescans the bundle.
      couplingFiles: [MANIFEST_PATH]
    },
    rules,
    (book) => ({ probe: probeWebsiteSnapshot, plan: planPages(book), project: projectPage(book), lintBundle: lintSnapshot(book) })
  )

export const websiteSnapshotAdapter: BundleAdapter = makeWebsiteSnapshotAdapter(websiteSnapshotRules)
