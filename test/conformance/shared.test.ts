import { existsSync, statSync } from "node:fs"
import { resolve } from "node:path"
import { fileURLToPath } from "node:url"
import { describe, expect, it } from "vitest"

/**
 * The third-party corpora live beside the project (10-quality-bars §4): read
 * from AKM_CORPORA or ../shared at run time, never copied in. Absent on a bare
 * clone, so the suite skips rather than fails.
 */
const corpora = process.env.AKM_CORPORA
  ? resolve(process.env.AKM_CORPORA)
  : fileURLToPath(new URL("../../../shared", import.meta.url))

describe("shared corpora", () => {
  it.skipIf(!existsSync(corpora)).each(["spec", "corpora", "bench"])(`${corpora} holds %s/`, (dir) => {
    expect(statSync(resolve(corpora, dir)).isDirectory()).toBe(true)
  })
})
