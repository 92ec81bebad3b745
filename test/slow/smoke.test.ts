import { existsSync } from "node:fs"
import { resolve } from "node:path"
import { fileURLToPath } from "node:url"
import { describe, expect, it } from "vitest"

// Keeps `npm run test:slow` meaningful (vitest fails on "no test files") until the crash and corpus matrices land here.
const corpora = process.env.AKM_CORPORA
  ? resolve(process.env.AKM_CORPORA)
  : fileURLToPath(new URL("../../../shared", import.meta.url))

describe("slow suite", () => {
  it("runs with the slow timeout", ({ task }) => {
    expect(task.timeout).toBe(600_000)
  })

  it.skipIf(!existsSync(corpora))("finds the large corpora in the shared dir", () => {
    expect(existsSync(resolve(corpora, "corpora"))).toBe(true)
  })
})
