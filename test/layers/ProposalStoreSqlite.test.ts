import { describe, expect, it } from "@effect/vitest"
import * as SqlClient from "@effect/sql/SqlClient"
import { randomUUID } from "node:crypto"
import * as path from "node:path"
import { Effect, Exit, Layer } from "effect"
import { sha256Hex } from "../../src/domain/Proposal.js"
import { makeProposalStore, ProposalStoreSqlite } from "../../src/layers/sqlite/ProposalStoreSqlite.js"
import { makeStateDb, StateDb, StateDbMemory } from "../../src/layers/sqlite/StateDb.js"
import { makeStateStore, StateStoreSqlite } from "../../src/layers/sqlite/StateStoreSqlite.js"
import { proposalStoreContract } from "../services/ProposalStore.contract.js"
import { tempDir } from "./tempDir.js"

/** Both stores over one state.db file in a temp dir. */
const storesInTempFile = Layer.unwrapScoped(
  Effect.map(tempDir("proposals"), (dir) => {
    const db = Layer.scoped(StateDb, makeStateDb(path.join(dir, "state.db")))
    return Layer.mergeAll(ProposalStoreSqlite, StateStoreSqlite).pipe(Layer.provide(db))
  })
)

proposalStoreContract("sqlite file", storesInTempFile)
proposalStoreContract("sqlite :memory: over StateDb", Layer.mergeAll(ProposalStoreSqlite, StateStoreSqlite).pipe(Layer.provide(StateDbMemory)))

const pending = (bundle: string) => ({
  id: randomUUID(),
  title: "t",
  recipe: "manual",
  changeClass: "mechanical" as const,
  evidence: [],
  fingerprint: sha256Hex("f"),
  status: "pending" as const,
  createdAt: "2026-01-01T00:00:00.000Z",
  changes: [{ bundle, path: "a.md", beforeHash: null, after: "hello" }]
})

describe("ProposalStoreSqlite", () => {
  it.scoped("proposals are durable in state.db next to the event log, one migration history", () =>
    Effect.gen(function* () {
      const file = path.join(yield* tempDir("proposals-durable"), "state.db")
      const p = pending("notes")
      yield* Effect.scoped(Effect.flatMap(makeProposalStore(file), (store) => store.create(p)))
      const store = yield* makeProposalStore(file)
      expect(yield* store.get(p.id)).toEqual(p)
      const status = yield* (yield* makeStateStore(file)).init
      expect(status.migrations).toContain("0003_proposals")
      expect(status.integrity).toBe("ok")
    }))

  it.scoped("stored after-bytes that no longer match their hash are refused, never applied (R-TX-2)", () =>
    Effect.gen(function* () {
      const file = path.join(yield* tempDir("proposals-tamper"), "state.db")
      const stateDb = yield* makeStateDb(file)
      const p = pending("notes")
      const store = yield* makeProposalStore(file)
      yield* store.create(p)
      const sql = yield* stateDb.client
      yield* sql`UPDATE proposal_changes SET after = ${Buffer.from("tampered")} WHERE proposal_id = ${p.id}`
      const read = yield* Effect.exit(store.get(p.id))
      expect(Exit.isFailure(read)).toBe(true)
      expect(JSON.stringify(read)).toContain("do not match their hash")
    }))

  it.scoped("stored text that is not UTF-8 (its hash recomputed to match) is refused with a clear error, not a crash", () =>
    Effect.gen(function* () {
      const file = path.join(yield* tempDir("proposals-not-utf8"), "state.db")
      const stateDb = yield* makeStateDb(file)
      const p = pending("notes")
      const store = yield* makeProposalStore(file)
      yield* store.create(p)
      const sql = yield* stateDb.client
      const bytes = Buffer.from([0x61, 0xff, 0x62])
      yield* sql`UPDATE proposal_changes SET after = ${bytes}, after_hash = ${sha256Hex(bytes)} WHERE proposal_id = ${p.id}`
      const read = yield* Effect.exit(store.get(p.id))
      expect(Exit.isFailure(read)).toBe(true)
      expect(JSON.stringify(read)).toContain("is not valid UTF-8")
    }))

  it.effect("a status outside the lifecycle is refused by the schema", () =>
    Effect.gen(function* () {
      const sql = yield* SqlClient.SqlClient
      const bad = yield* Effect.exit(sql`INSERT INTO proposals (id, title, recipe, change_class, status, fingerprint, evidence, created_at) VALUES ('x', 't', 'r', 'mechanical', 'maybe', 'f', '[]', 'now')`)
      expect(Exit.isFailure(bad)).toBe(true)
    }).pipe(Effect.provide(Layer.effect(SqlClient.SqlClient, Effect.flatMap(StateDb, (db) => db.client)).pipe(Layer.provide(StateDbMemory)))))
})
