import * as path from "node:path"
import { Effect, Layer } from "effect"
import { EvidenceStoreMemory, makeEvidenceStore } from "../../src/layers/sqlite/EvidenceStoreSqlite.js"
import { EvidenceStore } from "../../src/services/EvidenceStore.js"
import { tempDir } from "../layers/tempDir.js"
import { evidenceStoreContract } from "./EvidenceStore.contract.js"

// The contract itself is in EvidenceStore.contract.ts: test/postgres/contracts.test.ts runs it on PostgreSQL too.
const evidenceInTempFile = Layer.scoped(EvidenceStore, Effect.flatMap(tempDir("evidence"), (dir) => makeEvidenceStore(path.join(dir, "state.db"))))

evidenceStoreContract("sqlite file", evidenceInTempFile)
evidenceStoreContract("sqlite :memory:", EvidenceStoreMemory)
