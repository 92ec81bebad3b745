import { Effect, Layer } from "effect"
import { ProposalStore } from "../../services/ProposalStore.js"
import { clientDriver } from "./clientDriver.js"
import { proposalStoreOn } from "./proposals.js"
import { makeStateDb, StateDb } from "./StateDb.js"

/** ProposalStore over the shared state.db connection (proposals.ts's statements on its @effect/sql client). */
export const proposalStoreFrom = (stateDb: StateDb["Type"]) => Effect.sync(() => proposalStoreOn(stateDb.filename, Effect.map(stateDb.client, clientDriver)))

/** A ProposalStore with its own state.db connection (tests, tools). */
export const makeProposalStore = (filename: string) => Effect.flatMap(makeStateDb(filename), proposalStoreFrom)

/** Needs StateDb (StateDbLive in AkmLive, StateDbMemory in AkmTest). */
export const ProposalStoreSqlite = Layer.effect(ProposalStore, Effect.flatMap(StateDb, proposalStoreFrom))
