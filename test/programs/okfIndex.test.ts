import { describe, expect, it } from "@effect/vitest"
import * as fs from "node:fs"
import * as path from "node:path"
import { Effect } from "effect"
import { AkmTest } from "../../src/layers/test/AkmTest.js"
import { bundleAdd } from "../../src/programs/bundle/add.js"
import { configSet } from "../../src/programs/config.js"
import { indexBundles } from "../../src/programs/indexBundles.js"
import { okfIndex } from "../../src/programs/okf/index.js"
import { proposalAccept } from "../../src/programs/proposals/accept.js"
import { findProposal } from "../../src/programs/proposals/lookup.js"
import { caller, failure, folder, mine } from "./writeFixtures.js"

/** `akm okf index [--write]` (issue 26 item 3; spec 03 "okf", OKF §8) on a bundle shaped like the conformance bundles. */

const concept = (type: string, title: string, description: string) => `---\ntype: ${type}\ntitle: ${title}\ndescription: ${description}\n---\n# ${title}\n\nBody.\n`

const ROOT_BEFORE = [
  "---",
  "okf_version: \"0.2\"",
  "---",
  "# Acme",
  "",
  "Hand-written intro that is not an entry.",
  "",
  "# Subdirectories",
  "",
  "* [tables](tables/index.md) - BigQuery tables, described by hand.",
  "* [old](old/index.md) - A folder that is gone.",
  "* [Website](https://example.com) - An external link, kept as it is.",
  ""
].join("\n")

const ROOT_AFTER = [
  "---",
  "okf_version: \"0.2\"",
  "---",
  "# Acme",
  "",
  "Hand-written intro that is not an entry.",
  "",
  "# Subdirectories",
  "",
  "* [tables](tables/index.md) - BigQuery tables, described by hand.",
  "* [Website](https://example.com) - An external link, kept as it is.",
  "* [metrics](metrics/index.md)",
  ""
].join("\n")

const TABLES_BEFORE = "# BigQuery Table\n\nA note kept by hand.\n\n* [Customer Orders](orders.md) - One row per order, worded by hand.\n"
const TABLES_AFTER = "# BigQuery Table\n\nA note kept by hand.\n\n* [Customer Orders](orders.md) - One row per order, worded by hand.\n* [Customers](customers.md) - One row per customer.\n"
const METRICS_AFTER = "# Metric\n\n* [Revenue](revenue.md) - Recognized revenue for a period.\n"

const acme = () =>
  folder({
    "index.md": ROOT_BEFORE,
    "tables/index.md": TABLES_BEFORE,
    "tables/orders.md": concept("BigQuery Table", "Customer Orders", "One row per completed order. The grain is the order."),
    "tables/customers.md": concept("BigQuery Table", "Customers", "One row per customer. Keyed by id."),
    "metrics/revenue.md": concept("Metric", "Revenue", "Recognized revenue for a period. Backed by an Attested Computation."),
    "attesters/check.py": "print('not a concept')\n"
  })

const read = (root: string, file: string) => fs.readFileSync(path.join(root, file), "utf8")

describe("okf index", () => {
  it.effect("a stale index is reported with its diff; --write makes one proposal; after accept every index is current", () =>
    Effect.gen(function* () {
      yield* mine
      yield* configSet("policy.autoApply", "[]")
      const root = acme()
      yield* bundleAdd({ source: root, name: "acme", ...caller })

      const stale = yield* okfIndex({ write: false })
      expect(stale.bundles).toEqual(["acme"])
      expect(stale.current).toBe(false)
      expect(stale.files).toEqual([
        { bundle: "acme", path: "index.md", action: "updated" },
        { bundle: "acme", path: "metrics/index.md", action: "created" },
        { bundle: "acme", path: "tables/index.md", action: "updated" }
      ])
      expect(stale.diff).toContain("-* [old](old/index.md) - A folder that is gone.\n")
      expect(stale.diff).toContain("+* [metrics](metrics/index.md)\n")
      expect(stale.diff).toContain("--- /dev/null\n+++ b/metrics/index.md")
      // Reporting writes nothing.
      expect(read(root, "index.md")).toBe(ROOT_BEFORE)
      expect(fs.existsSync(path.join(root, "metrics/index.md"))).toBe(false)

      const written = yield* okfIndex({ write: true })
      expect(written.proposal).toMatchObject({ status: "pending", files: ["index.md", "metrics/index.md", "tables/index.md"] })
      const proposal = yield* findProposal(written.proposal!.id)
      expect(proposal).toMatchObject({ recipe: "okf-index", changeClass: "mechanical", evaluation: { verdict: "pass" } })
      expect((yield* okfIndex({ write: false })).current).toBe(false)

      yield* proposalAccept(proposal.id)
      expect(read(root, "index.md")).toBe(ROOT_AFTER)
      expect(read(root, "tables/index.md")).toBe(TABLES_AFTER)
      expect(read(root, "metrics/index.md")).toBe(METRICS_AFTER)
      const after = yield* okfIndex({ write: false })
      expect(after).toMatchObject({ current: true, diff: "" })
      expect(after.files.every((f) => f.action === "unchanged")).toBe(true)
      // Nothing left to write: no second proposal.
      expect((yield* okfIndex({ write: true })).proposal).toBeUndefined()
    }).pipe(Effect.provide(AkmTest)))

  it.effect("--write applies at once under the default policy; akm index never writes index.md; a non-okf bundle is refused", () =>
    Effect.gen(function* () {
      yield* mine
      const root = folder({ "guide.md": concept("Guide", "Setup [draft]", "How to set up.") })
      yield* bundleAdd({ source: root, name: "notes", ...caller })
      yield* indexBundles({})
      expect(fs.existsSync(path.join(root, "index.md"))).toBe(false)
      const written = yield* okfIndex({ bundle: "notes", write: true })
      expect(written.proposal?.status).toBe("accepted")
      expect(read(root, "index.md")).toBe("# Guide\n\n* [Setup \\[draft\\]](guide.md) - How to set up.\n")
      expect((yield* okfIndex({ bundle: "notes", write: false })).current).toBe(true)
      expect(failure(yield* Effect.exit(okfIndex({ bundle: "mine", write: false })))).toMatchObject({ _tag: "UsageError", message: expect.stringContaining("akm adapter") })
    }).pipe(Effect.provide(AkmTest)))
})
