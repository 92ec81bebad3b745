import { defineConfig } from "vitest/config"

// `npm run test:postgres`: the Postgres suites only, against AKM_TEST_DATABASE_URL
// (.ci/run starts a throwaway server with scripts/pg-cluster.mjs; docs/team.md).
export default defineConfig({
  test: {
    include: ["test/postgres/**/*.test.ts"],
    setupFiles: ["test/support/homeGuard.ts"],
    globalSetup: ["test/support/globalSetup.ts"],
    testTimeout: 60_000,
    hookTimeout: 60_000,
    pool: "forks"
  }
})
