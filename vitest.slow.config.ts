import { defineConfig } from "vitest/config"

// `npm run test:slow`: crash-trial matrices and large corpora, 10-quality-bars §4.
export default defineConfig({
  test: {
    include: ["test/slow/**/*.test.ts"],
    setupFiles: ["test/support/homeGuard.ts"],
    globalSetup: ["test/support/globalSetup.ts"],
    testTimeout: 600_000,
    hookTimeout: 600_000,
    pool: "forks"
  }
})
