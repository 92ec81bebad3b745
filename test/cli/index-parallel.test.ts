import Database from "better-sqlite3"
import { createHash } from "node:crypto"
import { existsSync } from "node:fs"
import { join } from "node:path"
import { afterAll, describe, expect, it } from "vitest"
import { makeWorkspace, type Workspace } from "../support/cli.js"

// A bundle large enough for the projector's worker threads (MIN_PARALLEL_PLANS), indexed by the real CLI
// with workers and without: the same index.db rows and the same search output (R-IDX-4).

const NOTES = 450

const notes = (): Record<string, string> => {
  const files: Record<string, string> = { "index.md": `# Notes\n\n${Array.from({ length: NOTES }, (_, i) => `* [Note ${i}](notes/n${i}.md)`).join("\n")}\n` }
  for (let i = 0; i < NOTES; i++) {
    files[`notes/n${i}.md`] = `---\ntype: guide\ntitle: Note ${i} on ${["caching", "retries", "deploys"][i % 3]}\ndescription: Topic ${i % 11}\ntags: [t${i % 5}]\n---\n# Note ${i}\n\nSee [next](n${(i + 1) % NOTES}.md).\n\n## Steps\n\n- step ${i}\n`
  }
  files["notes/broken.md"] = "# Broken\n\nSee [missing](nowhere.md).\n"
  return files
}

/** Every row search and show read, in a stable order, hashed. */
const indexDigest = (workspace: Workspace): string => {
  const db = new Database(join(workspace.cacheDir, "index.db"), { readonly: true })
  try {
    const hash = createHash("sha256")
    for (const query of [
      "SELECT * FROM documents ORDER BY ref",
      "SELECT * FROM document_json ORDER BY id",
      "SELECT * FROM links ORDER BY document_id, target",
      "SELECT * FROM outline ORDER BY document_id, position",
      "SELECT rowid, * FROM documents_trigram ORDER BY rowid",
      "SELECT bundle, path, size, hash FROM manifest ORDER BY path"
    ]) for (const row of db.prepare(query).raw().iterate()) hash.update(`${JSON.stringify(row)}\n`)
    return hash.digest("hex")
  } finally {
    db.close()
  }
}

describe("akm index of a large bundle on worker threads", () => {
  const parallel = makeWorkspace()
  const serial = makeWorkspace()
  afterAll(() => {
    parallel.cleanup()
    serial.cleanup()
  })
  const folder = parallel.folder("notes", notes())

  it("the CLI ships its worker beside the bundle", () => {
    expect(existsSync(join(__dirname, "../../dist/cli/projector-worker.cjs"))).toBe(true)
  })

  it("builds the same index as one thread, and search answers the same", async () => {
    const withWorkers = await parallel.run(["bundle", "add", folder, "--name", "notes", "--format", "json"], { env: { AKM_INDEX_WORKERS: "2" } })
    expect(withWorkers.code, withWorkers.stderr).toBe(0)
    const alone = await serial.run(["bundle", "add", folder, "--name", "notes", "--format", "json"], { env: { AKM_INDEX_WORKERS: "0" } })
    expect(alone.code, alone.stderr).toBe(0)
    expect(withWorkers.json().items).toBe(NOTES + 1)
    expect(withWorkers.json().items).toBe(alone.json().items)
    expect(indexDigest(parallel)).toBe(indexDigest(serial))

    const full = await parallel.run(["index", "--full", "--format", "json"], { env: { AKM_INDEX_WORKERS: "2" } })
    const fullAlone = await serial.run(["index", "--full", "--format", "json"], { env: { AKM_INDEX_WORKERS: "0" } })
    expect(full.code, full.stderr).toBe(0)
    const { durationMs: _a, ...report } = full.json().bundles[0]
    const { durationMs: _b, ...reportAlone } = fullAlone.json().bundles[0]
    expect(report).toMatchObject({ status: "indexed", added: 0, updated: 0, removed: 0, unchanged: NOTES + 1 })
    expect(report.diagnostics.warning).toBeGreaterThan(0)
    expect(report).toEqual(reportAlone)
    expect(indexDigest(parallel)).toBe(indexDigest(serial))

    for (const query of ["caching note", "topic 7", "steps"]) {
      const a = await parallel.run(["search", query, "--format", "json", "--no-track"])
      const b = await serial.run(["search", query, "--format", "json", "--no-track"])
      expect(a.code, a.stderr).toBe(0)
      const { timingMs: _a, ...hits } = a.json()
      const { timingMs: _b, ...hitsAlone } = b.json()
      expect(hits.hits.length).toBeGreaterThan(0)
      expect(hits).toEqual(hitsAlone)
    }
  }, 120_000)
})
