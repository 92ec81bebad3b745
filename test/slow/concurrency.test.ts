import Database from "better-sqlite3"
import { join } from "node:path"
import { afterAll, describe, expect, it } from "vitest"
import { makeWorkspace, type CliResult } from "../support/cli.js"

/**
 * Spec 10 §3 concurrency: for a bounded time one process reindexes in a loop,
 * one applies proposals (remember), one searches — real CLI processes on one
 * workspace. No error other than a clean lease wait, no lost update, every
 * search answers, and every database passes integrity_check afterwards.
 */
const ws = makeWorkspace()
afterAll(() => ws.cleanup())

const RUN_MS = 8_000

const loop = async (step: (i: number) => Promise<CliResult>, results: Array<CliResult>) => {
  const end = Date.now() + RUN_MS
  for (let i = 0; Date.now() < end; i++) results.push(await step(i))
}

const isCleanWait = (r: CliResult) => r.code !== 0 && /lock|busy|lease/i.test(r.stderr)

describe("three processes on one workspace", () => {
  it("reindex, apply and search run together without errors or lost updates", async () => {
    const notes: Record<string, string> = {}
    for (let i = 0; i < 40; i++) notes[`knowledge/topic-${i}.md`] = `---\ndescription: Topic ${i} about caching and retries\n---\n# Topic ${i}\n\nNotes on caching layer ${i} and retry budget ${i}.\n`
    const folder = ws.folder("kb", notes)
    expect((await ws.run(["init"])).code).toBe(0)
    expect((await ws.run(["bundle", "add", folder, "--name", "kb", "--adapter", "akm"])).code).toBe(0)

    const indexes: Array<CliResult> = []
    const remembers: Array<CliResult> = []
    const searches: Array<CliResult> = []
    await Promise.all([
      loop(() => ws.run(["index", "--full"]), indexes),
      loop((i) => ws.run(["remember", `Concurrent fact number ${i}`, "--bundle", "kb", "--title", `fact ${i}`]), remembers),
      loop(() => ws.run(["search", "caching retry"]), searches)
    ])

    for (const r of [...indexes, ...remembers]) {
      if (r.code !== 0) expect(isCleanWait(r), r.stderr).toBe(true)
    }
    expect(searches.length).toBeGreaterThan(0)
    for (const r of searches) {
      expect(r.code, r.stderr).toBe(0)
      expect(r.json<{ hits: Array<unknown> }>().hits.length).toBeGreaterThan(0)
    }

    // No lost update: every accepted remember is a file and a proposal.
    const accepted = remembers.filter((r) => r.code === 0).length
    expect(accepted).toBeGreaterThan(0)
    const list = (await ws.run(["proposal", "list"])).json<{ proposals: Array<{ status: string }> }>()
    expect(list.proposals.filter((p) => p.status === "accepted").length).toBe(accepted)
    const final = (await ws.run(["index"])).code
    expect(final).toBe(0)
    const found = (await ws.run(["search", "kb//memories/", "--limit", "200"])).json<{ hits: Array<unknown> }>()
    expect(found.hits.length).toBe(accepted)

    for (const db of [join(ws.dataDir, "state.db"), join(ws.dataDir, "logs.db"), join(ws.cacheDir, "index.db")]) {
      const handle = new Database(db, { readonly: true })
      try {
        expect(handle.pragma("integrity_check", { simple: true })).toBe("ok")
      } finally {
        handle.close()
      }
    }
  }, 120_000)
})
