import { expect, it } from "vitest"
import { SKIPPED_NAME, TEST_DATABASE_URL } from "./pgTestDb.js"

/**
 * The one place `npm test` says the Postgres suites were not run: each suite
 * file registers through postgresSuites (pgTestDb.ts) and, without a server,
 * shows only its own name as skipped.
 */
if (TEST_DATABASE_URL === undefined) {
  it.skip(SKIPPED_NAME, () => {})
} else {
  it("AKM_TEST_DATABASE_URL names the server the Postgres suites run against", () => {
    expect(() => new URL(TEST_DATABASE_URL!)).not.toThrow()
  })
}
