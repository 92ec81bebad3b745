import { describe, expect, it } from "@effect/vitest"
import { randomUUID } from "node:crypto"
import { Effect, Layer, Redacted } from "effect"
import { sha256Hex, type Proposal } from "../../src/domain/Proposal.js"
import { trustedText } from "../../src/domain/Redaction.js"
import { utilityOf, UTILITY_HISTORY } from "../../src/domain/Utility.js"
import { connectPg } from "../../src/layers/postgres/client.js"
import { PgStateDb } from "../../src/layers/postgres/PgStateDb.js"
import { ProposalStorePg } from "../../src/layers/postgres/ProposalStorePg.js"
import { StateStorePg } from "../../src/layers/postgres/StateStorePg.js"
import { UsageLogPg } from "../../src/layers/postgres/UsageLogPg.js"
import { ProposalStore } from "../../src/services/ProposalStore.js"
import { StateStore } from "../../src/services/StateStore.js"
import { UsageLog } from "../../src/services/UsageLog.js"
import { TEST_DATABASE_URL, twoServersOnOneSchema } from "./pgTestDb.js"

/** One "server": its own pool on the shared schema, with the stores built on it. */
const server = (layer: Layer.Layer<PgStateDb>) =>
  Effect.gen(function* () {
    const context = yield* Layer.build(Layer.mergeAll(StateStorePg, UsageLogPg, ProposalStorePg).pipe(Layer.provideMerge(layer)))
    return {
      state: context.unsafeMap.get(StateStore.key) as StateStore["Type"],
      usage: context.unsafeMap.get(UsageLog.key) as UsageLog["Type"],
      proposals: context.unsafeMap.get(ProposalStore.key) as ProposalStore["Type"],
      db: context.unsafeMap.get(PgStateDb.key) as PgStateDb["Type"]
    }
  })

const twoServers = Effect.gen(function* () {
  const shared = yield* twoServersOnOneSchema
  return { schema: shared.schema, a: yield* server(shared.layer()), b: yield* server(shared.layer()) }
})

const pending = (bundle: string): Proposal => ({
  id: randomUUID(),
  title: "t",
  recipe: "manual",
  changeClass: "mechanical",
  evidence: [],
  fingerprint: sha256Hex(randomUUID()),
  status: "pending",
  createdAt: "2026-01-01T00:00:00.000Z",
  changes: [{ bundle, path: "a.md", beforeHash: null, after: "hello" }]
})

/** Several akm servers over one database (issue 27 §3): what one writes, the other sees; no lost update. */
export const twoServerSuite = () =>
  describe("Postgres state layers: two servers on one database", () => {
    it.scopedLive("a proposal accepted on one server is accepted on the other, and only one of two racing accepts moves it", () =>
      Effect.gen(function* () {
        const { a, b } = yield* twoServers
        const p = pending("team")
        yield* a.proposals.create(p)
        expect((yield* b.proposals.get(p.id))?.status).toBe("pending")
        const decision = { from: ["pending" as const], to: "accepted" as const, at: "2026-01-02T00:00:00.000Z", by: "user" }
        const results = yield* Effect.all([a.proposals.decide(p.id, decision), b.proposals.decide(p.id, decision)], { concurrency: 2 })
        expect(results.filter((r) => r.moved)).toHaveLength(1)
        expect(results.filter((r) => !r.moved)).toEqual([{ moved: false, status: "accepted" }])
        expect((yield* b.proposals.get(p.id))?.status).toBe("accepted")
        expect((yield* a.proposals.outcomes(p.id)).map((o) => o.kind)).toEqual(["accepted"])
        expect((yield* b.state.events({ subject: p.id })).map((e) => e.kind)).toEqual(["proposal.created", "proposal.accepted"])
      }))

    it.scopedLive("events appended by both servers at once page out in cursor order with none skipped", () =>
      Effect.gen(function* () {
        const { a, b } = yield* twoServers
        const subject = trustedText(`both-${randomUUID()}`)
        const cursors = yield* Effect.all(
          Array.from({ length: 40 }, (_, i) => (i % 2 === 0 ? a : b).state.appendEvent(`e${i}`, subject)),
          { concurrency: 8 }
        )
        const seen = yield* b.state.events({ subject, limit: 1000 })
        expect(seen.map((e) => e.id)).toEqual([...cursors].sort((x, y) => x - y))
      }))

    it.scopedLive("user feedback on one ref from both servers at once: every row kept, utility is the replay of the whole history", () =>
      Effect.gen(function* () {
        const { a, b } = yield* twoServers
        const ref = `team//${randomUUID()}`
        yield* Effect.all(
          Array.from({ length: 16 }, (_, i) => (i % 2 === 0 ? a : b).usage.recordFeedback({ ref, polarity: i % 3 === 0 ? "negative" : "positive", source: "user" })),
          { concurrency: 8 }
        )
        const rows = yield* a.usage.feedback({ ref, limit: 100 })
        expect(rows).toHaveLength(16)
        const history = [...rows].sort((x, y) => (x.at === y.at ? x.id - y.id : x.at < y.at ? -1 : 1)).slice(-UTILITY_HISTORY)
        expect(yield* b.usage.utility(ref)).toBeCloseTo(utilityOf(history.map((r) => ({ kind: r.polarity, atMs: Date.parse(r.at) })))!, 12)
      }))

    it.scopedLive("a connection the server drops is replaced: the next read succeeds", () =>
      Effect.gen(function* () {
        const { a, schema } = yield* twoServers
        yield* a.state.appendEvent("before", trustedText("drop"))
        // Server a's pooled connection, killed from outside as a failover or an admin would.
        const pid = (yield* Effect.flatMap(a.db.client, (sql) => sql<{ pid: number }>`SELECT pg_backend_pid() AS pid`))[0]!.pid
        const admin = yield* connectPg(Redacted.make(TEST_DATABASE_URL!), { maxConnections: 1 })
        expect((yield* admin<{ killed: boolean }>`SELECT pg_terminate_backend(${pid}) AS killed`)[0]!.killed).toBe(true)
        expect(schema).toMatch(/^akm_t_/)
        expect((yield* a.state.events({ subject: "drop" })).map((e) => e.kind)).toEqual(["before"])
        yield* a.state.appendEvent("after", trustedText("drop"))
        expect((yield* a.state.events({ subject: "drop" })).map((e) => e.kind)).toEqual(["before", "after"])
      }))
  })
