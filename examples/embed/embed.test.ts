import { existsSync, mkdtempSync, rmSync } from "node:fs"
import { tmpdir } from "node:os"
import { join } from "node:path"
import { afterAll, describe, expect, it } from "vitest"
import { main } from "./embed.js"

// R-ARCH-2: the embedding example runs, and the layer it swapped is the one that was used.

describe("examples/embed", () => {
  const root = mkdtempSync(join(tmpdir(), "akm-embed-test-"))
  afterAll(() => rmSync(root, { recursive: true, force: true }))

  it("adds and lists a bundle through the public API with an in-memory IndexStore", async () => {
    const { paths, initialized, added, listed } = await main(root)

    expect(added).toMatchObject({ name: "notes", source: { kind: "filesystem", path: paths.notesDir } })
    expect(listed.bundles.map((b) => b.name)).toEqual(["notes"])
    expect(listed.defaultBundle).toBe("notes")

    // The live layers did their work on disk…
    expect(existsSync(join(paths.configDir, "config.yaml"))).toBe(true)
    expect(existsSync(join(paths.dataDir, "state.db"))).toBe(true)
    expect(existsSync(join(paths.dataDir, "akm.lock"))).toBe(true)
    // …but the index was the swapped-in memory store: init reported it, and index.db never appeared.
    expect(initialized.databases.index.path).toBe(":memory:")
    expect(existsSync(join(paths.cacheDir, "index.db"))).toBe(false)
  })
})
