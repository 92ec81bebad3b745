import * as fs from "node:fs"
import * as os from "node:os"
import * as path from "node:path"
import { ManagedRuntime } from "effect"
import { afterAll, beforeAll, describe, expect, it } from "vitest"
import { makeAkmLive } from "../../src/layers/AkmLive.js"
import { bundleAdd } from "../../src/programs/bundle/add.js"
import { indexBundles } from "../../src/programs/indexBundles.js"
import { search } from "../../src/programs/search.js"
import type { SearchInput } from "../../src/domain/Search.js"

/**
 * Belief and supersession in ranking (issue 25, spec 04 §6) over a real
 * index of the natural-language set's three bundles: akm `supersededBy`,
 * project rules' `superseded_by` (a rule id), OKF `status: deprecated` and
 * `stale_after`.
 */
const fixtures = path.join(__dirname, "..", "fixtures", "search-quality")
const home = fs.mkdtempSync(path.join(os.tmpdir(), "akm-supersession-"))
const runtime = ManagedRuntime.make(makeAkmLive({ configDir: path.join(home, "c"), dataDir: path.join(home, "d"), cacheDir: path.join(home, "k"), quiet: true }))
const refs = async (query: string, more: Partial<SearchInput> = {}) => (await runtime.runPromise(search({ query, track: false, ...more }))).hits.map((h) => h.ref)
const hit = async (query: string, ref: string, more: Partial<SearchInput> = {}) =>
  (await runtime.runPromise(search({ query, track: false, ...more }))).hits.find((h) => h.ref === ref)
const before = (list: ReadonlyArray<string>, a: string, b: string) => {
  expect(list).toContain(a)
  if (list.includes(b)) expect(list.indexOf(a)).toBeLessThan(list.indexOf(b))
}

beforeAll(async () => {
  for (const [name, adapter] of [["library", "akm"], ["project", "project"], ["okf", "okf"]] as const) {
    await runtime.runPromise(bundleAdd({ source: path.join(fixtures, name), name, adapter, cwd: home, home }))
  }
  await runtime.runPromise(indexBundles({}))
}, 120_000)
afterAll(async () => {
  await runtime.dispose()
  fs.rmSync(home, { recursive: true, force: true })
})

describe("a replaced item's match belongs to its successor", () => {
  it("surfaces the successor when only the superseded text matches the words (akm supersededBy)", async () => {
    const found = await refs("winston transports and formats")
    expect(found[0]).toBe("library//knowledge/logging-library")
    expect(found).not.toContain("library//knowledge/logging-winston")
    expect((await hit("winston transports and formats", "library//knowledge/logging-library"))?.why).toContain("successor")
  })

  it("surfaces a project rule's successor named by rule id, and hides the replaced rule", async () => {
    const found = await refs("format python code with black")
    expect(found[0]).toBe("project//rules/07-format-with-ruff")
    expect(found).not.toContain("project//rules/03-format-with-black")
  })

  it("under --belief all, ranks every replaced item below its successor, even when the old text matches better", async () => {
    for (const [query, current, old] of [
      ["openvpn profile for the office", "library//knowledge/vpn-access", "library//knowledge/vpn-access-openvpn"],
      ["api version in the accept header media type", "library//knowledge/api-versioning", "library//knowledge/api-versioning-headers"],
      ["no deploys on a friday", "project//rules/05-deploy-windows", "project//rules/01-no-friday-deploys"]
    ] as const) {
      const found = await refs(query, { belief: "all" })
      expect(found, query).toContain(old)
      before(found, current, old)
    }
  })

  it("--belief historical still lists the old items alone", async () => {
    const found = await refs("winston logger", { belief: "historical" })
    expect(found).toEqual(["library//knowledge/logging-winston"])
  })
})

describe("outdated items without a link rank below the current item they extend", () => {
  it("OKF status: deprecated and akm beliefState: deprecated", async () => {
    before(await refs("solr product search"), "okf//services/search-api", "okf//services/search-api-v1")
    before(await refs("curl loop over the sitemap to warm caches"), "okf//runbooks/cache-warmup", "okf//runbooks/cache-warmup-manual")
    before(await refs("rollbar access token"), "library//knowledge/error-tracking", "library//knowledge/error-tracking-rollbar")
  })

  it("past OKF stale_after or akm expires", async () => {
    before(await refs("edit the database connection string to the replica"), "okf//runbooks/db-failover", "okf//runbooks/db-failover-2024")
    before(await refs("on-call rotation spreadsheet with daily shifts"), "library//facts/oncall-rotation", "library//facts/oncall-rotation-2024")
  })
})

describe("near-name decoys: the same words in the name, another subject in the body", () => {
  it("never win on the name alone", async () => {
    for (const [query, real, decoy] of [
      ["kubernetes rollback of a broken release", "library//skills/kubernetes-rollback", "library//commands/kubernetes-rollback-alerts"],
      ["terraform state stored remotely with locking", "library//skills/terraform-state", "library//knowledge/terraform-state-of-adoption"],
      ["docker image slimming with a smaller base image", "library//skills/docker-image-slimming", "library//knowledge/docker-image-slimming-podcast"],
      ["database migrations that add a column", "library//skills/database-migrations", "library//knowledge/database-migrations-team"],
      ["tls certificates renewal for the domain", "library//knowledge/tls-certificates", "library//knowledge/tls-certificates-training"],
      ["redis caching of hot keys", "library//knowledge/redis-caching", "library//knowledge/redis-caching-contract"]
    ] as const) {
      const found = await refs(query)
      expect(found[0], query).toBe(real)
      before(found, real, decoy)
    }
  })
})
