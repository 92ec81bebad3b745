import { Layer } from "effect"
import { EvidenceStorePg } from "../../src/layers/postgres/EvidenceStorePg.js"
import { LogStorePg } from "../../src/layers/postgres/LogStorePg.js"
import { ProposalStorePg } from "../../src/layers/postgres/ProposalStorePg.js"
import { StateStorePg } from "../../src/layers/postgres/StateStorePg.js"
import { UsageLogPg } from "../../src/layers/postgres/UsageLogPg.js"
import { evidenceStoreContract } from "../services/EvidenceStore.contract.js"
import { logStoreContract } from "../services/LogStore.contract.js"
import { proposalStoreContract } from "../services/ProposalStore.contract.js"
import { stateStoreContract } from "../services/StateStore.contract.js"
import { usageLogContract } from "../services/UsageLog.contract.js"
import { PgStateDbTest, postgresSuites } from "./pgTestDb.js"
import { cliSuite } from "./cli.js"
import { twoServerSuite } from "./twoServers.js"

/**
 * R-ARCH-5 on PostgreSQL: each state-side store passes the contract suite its
 * SQLite layer passes, each suite on a schema of its own; then several
 * servers over one database.
 */
postgresSuites("Postgres state layers: contract suites, two servers, the CLI", () => {
  stateStoreContract("postgres", StateStorePg.pipe(Layer.provide(PgStateDbTest)))
  usageLogContract("postgres", UsageLogPg.pipe(Layer.provide(PgStateDbTest)))
  logStoreContract("postgres", LogStorePg.pipe(Layer.provide(PgStateDbTest)))
  proposalStoreContract("postgres", Layer.mergeAll(ProposalStorePg, StateStorePg).pipe(Layer.provide(PgStateDbTest)))
  evidenceStoreContract("postgres", EvidenceStorePg.pipe(Layer.provide(PgStateDbTest)))
  twoServerSuite()
  cliSuite()
})
