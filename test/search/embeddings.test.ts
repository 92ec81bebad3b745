import * as fs from "node:fs"
import * as os from "node:os"
import * as path from "node:path"
import { Effect, Layer, ManagedRuntime } from "effect"
import { afterAll, beforeAll, describe, expect, it } from "vitest"
import { startEmbeddingStub, type EmbeddingStub } from "../../bench/embeddingStub.js"
import { makeAkmLive } from "../../src/layers/AkmLive.js"
import { EmbeddingsLive } from "../../src/layers/embeddings/EmbeddingsLive.js"
import { bundleAdd } from "../../src/programs/bundle/add.js"
import { indexBundles } from "../../src/programs/indexBundles.js"
import { search } from "../../src/programs/search.js"
import { Embeddings } from "../../src/services/Embeddings.js"
import { Progress } from "../../src/services/Progress.js"
import { WorkspaceConfig } from "../../src/services/WorkspaceConfig.js"

/**
 * Hybrid retrieval (R-SRCH-4, issue 25) against a stub OpenAI-compatible
 * endpoint on 127.0.0.1 that returns deterministic hashing vectors, over the
 * natural-language set's library, with a real index.db.
 */
const library = path.join(__dirname, "..", "fixtures", "search-quality", "library")
const KEY = "k-embeddings-7f3a91"

// The key reaches the layer the way a user's does: config says env:EMBED_KEY and the live Credentials layer reads it.
process.env.EMBED_KEY = KEY
delete process.env.NOT_THERE

let stub: EmbeddingStub
const home = fs.mkdtempSync(path.join(os.tmpdir(), "akm-embeddings-"))
const copy = path.join(home, "library")
const notices: Array<string> = []
const CaptureProgress = Layer.succeed(Progress, Progress.of({ update: () => Effect.void, done: () => Effect.void, warn: (m) => Effect.sync(() => void notices.push(m)) }))
const runtime = ManagedRuntime.make(makeAkmLive({ configDir: path.join(home, "c"), dataDir: path.join(home, "d"), cacheDir: path.join(home, "k"), quiet: true }))
/** Runs with an Embeddings layer whose notices are captured (the shipped one prints them on stderr). */
const withNotices = Layer.provide(EmbeddingsLive, CaptureProgress)

const searchRefs = async (query: string) => (await runtime.runPromise(search({ query, track: false, limit: 10 }).pipe(Effect.provide(withNotices)))).hits
const configure = (value: unknown) => runtime.runPromise(Effect.flatMap(WorkspaceConfig, (w) => w.update((e) => e.set(["search", "embeddings"], value))))
const reindex = () => runtime.runPromise(indexBundles({}).pipe(Effect.provide(withNotices)))

beforeAll(async () => {
  stub = await startEmbeddingStub(64)
  fs.cpSync(library, copy, { recursive: true })
  await runtime.runPromise(bundleAdd({ source: copy, name: "library", adapter: "akm", cwd: home, home }))
  await runtime.runPromise(indexBundles({}))
}, 120_000)
afterAll(async () => {
  await runtime.dispose()
  await stub.stop()
  fs.rmSync(home, { recursive: true, force: true })
})

describe("hybrid retrieval through an embeddings endpoint", () => {
  it("without search.embeddings, search and index make no request (R-SRCH-1)", async () => {
    await searchRefs("kubernetes rollback")
    await reindex()
    expect(stub.requests()).toBe(0)

  })

  it("embeds every item at index time in batches, keyed by content hash: unchanged items are never embedded again", async () => {
    await configure({ baseUrl: stub.baseUrl, model: "stub-hash", dimensions: 64, apiKey: "env:EMBED_KEY" })
    await reindex()
    const items = fs.readdirSync(copy, { recursive: true }).filter((f) => String(f).endsWith(".md") || String(f).endsWith(".sh")).length
    expect(stub.inputs()).toBe(items)
    expect(stub.requests()).toBe(Math.ceil(items / 64))
    expect(stub.authorizations().every((a) => a === `Bearer ${KEY}`)).toBe(true)
    await reindex()
    expect(stub.inputs()).toBe(items)
    fs.appendFileSync(path.join(copy, "knowledge", "feature-flags.md"), "\nFlags are removed a month after a full rollout.\n")
    await reindex()
    expect(stub.inputs()).toBe(items + 1)
  }, 60_000)

  it("fuses the nearest items with lexical hits: a misspelt question finds what no word matches", async () => {
    const before = stub.requests()
    const hits = await searchRefs("kuberntes rolback")
    expect(stub.requests()).toBe(before + 1)
    const rollback = hits.find((h) => h.ref === "library//skills/kubernetes-rollback")
    expect(rollback?.why).toEqual(["semantic"])
    // The key went only to the endpoint.
    expect(JSON.stringify(hits)).not.toContain(KEY)
  })

  it("a slow endpoint: after 300 ms the search answers lexically, with a one-line notice", async () => {
    stub.setDelay(2_000)
    notices.length = 0
    const started = Date.now()
    const hits = await searchRefs("roll back a kubernetes deployment")
    expect(Date.now() - started).toBeLessThan(1_500)
    expect(hits[0]?.ref).toBe("library//skills/kubernetes-rollback")
    expect(hits.every((h) => !h.why.includes("semantic"))).toBe(true)
    expect(notices).toEqual(["akm: semantic search skipped: the embeddings endpoint did not answer within 300 ms; lexical results only"])
    stub.setDelay(0)
  })

  it("the endpoint stopped mid-test: search answers lexically and the index still succeeds, with notices", async () => {
    await stub.stop()
    notices.length = 0
    const hits = await searchRefs("roll back a kubernetes deployment")
    expect(hits[0]?.ref).toBe("library//skills/kubernetes-rollback")
    expect(notices).toHaveLength(1)
    expect(notices[0]).toMatch(/^akm: semantic search skipped: the embeddings endpoint could not be reached .*; lexical results only$/)
    fs.appendFileSync(path.join(copy, "knowledge", "feature-flags.md"), "\nOld flags are listed in the weekly report.\n")
    const report = await reindex()
    expect(report.totals).toBeDefined()
    expect(notices.some((n) => /^akm: 1 items were not embedded: .*searched lexically until the next index$/.test(n))).toBe(true)
  })

  it("an unresolvable key is a notice, never a failed search", async () => {
    await configure({ baseUrl: "http://127.0.0.1:9/v1", model: "stub-hash", apiKey: "env:NOT_THERE" })
    notices.length = 0
    const hits = await searchRefs("roll back a kubernetes deployment")
    expect(hits[0]?.ref).toBe("library//skills/kubernetes-rollback")
    expect(notices).toEqual(["akm: semantic search skipped: the environment variable NOT_THERE is not set (export NOT_THERE, or use a secret:<ref> instead); lexical results only"])
  })
})

describe("the Embeddings seam", () => {
  it("the live layer's refresh is undefined-valued when unconfigured", async () => {
    const rt = ManagedRuntime.make(makeAkmLive({ configDir: path.join(home, "c2"), dataDir: path.join(home, "d2"), cacheDir: path.join(home, "k2"), quiet: true }))
    try {
      const embeddings = await rt.runPromise(Embeddings)
      expect(await rt.runPromise(embeddings.refresh!)).toBeUndefined()
      expect(await rt.runPromise(embeddings.nearest("anything", 5))).toEqual([])
    } finally {
      await rt.dispose()
    }
  })
})
