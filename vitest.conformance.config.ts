import { defineConfig } from "vitest/config"

// `npm run test:conformance`: the suites over ../shared (or $AKM_CORPORA), 10-quality-bars §4.
export default defineConfig({
  test: {
    include: ["test/conformance/**/*.test.ts"],
    setupFiles: ["test/support/homeGuard.ts"],
    globalSetup: ["test/support/globalSetup.ts"],
    testTimeout: 120_000,
    hookTimeout: 120_000,
    pool: "forks"
  }
})
