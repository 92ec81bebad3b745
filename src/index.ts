/**
 * akm's public library API (spec 09 §5): services, layers, programs and the
 * domain, so an embedding program can run any program with its own layers.
 */
export * as domain from "./domain/index.js"
export * as programs from "./programs/index.js"
export * as services from "./services/index.js"
/** Every live layer, to rebuild the graph or swap a piece (src/layers/index.ts). */
export * as layers from "./layers/index.js"
export { AkmLive, makeAkmLive, type AkmLiveOptions } from "./layers/AkmLive.js"
export { AkmTest, WorkspaceConfigTemp } from "./layers/test/AkmTest.js"
export { IndexStoreMiniSearch } from "./layers/memory/IndexStoreMiniSearch.js"
export { IndexStoreSqlite } from "./layers/sqlite/IndexStoreSqlite.js"
export { StateStoreSqlite, StateStoreMemory } from "./layers/sqlite/StateStoreSqlite.js"
export { LogStoreSqlite, LogStoreMemory } from "./layers/sqlite/LogStoreSqlite.js"
export { UsageLogSqlite, makeUsageLog } from "./layers/sqlite/UsageLogSqlite.js"
export { RedactorSqlite } from "./layers/sqlite/RedactorSqlite.js"
export { EvidenceStoreSqlite, EvidenceStoreMemory, makeEvidenceStore } from "./layers/sqlite/EvidenceStoreSqlite.js"
export { TokenizerGpt, makeTokenizer } from "./layers/tokenizer/TokenizerGpt.js"
export { ProgressSilent, ProgressStderr } from "./layers/fs/ProgressTerminal.js"
export { BundleFilesNode, makeBundleFiles } from "./layers/fs/BundleFilesNode.js"
export {
  AdaptersBuiltIn, adapterInfo, builtInRegistry, makeAdapters, registryAdapters, selectAdapter, type AdapterRegistry
} from "./layers/adapters/registry.js"
export { TransactionEngineLive, makeTransactionEngine } from "./layers/fs/TransactionEngine.js"
export { TransactionJournalsLive } from "./layers/fs/TransactionJournalsLive.js"
export { ChangeValidatorIndexed, makeChangeValidator } from "./layers/validation/ChangeValidatorIndexed.js"
export { GeneratorLive, GeneratorFromSection, makeGenerator, generatorId } from "./layers/generator/GeneratorLive.js"
export { GeneratorScripted, makeScriptedGenerator, type Script, type ScriptAnswer } from "./layers/generator/GeneratorScripted.js"
export { GeneratorNone, makeNoGenerator } from "./layers/generator/GeneratorNone.js"
export { GeneratorAgent, makeAgentGenerator, readPacket, packetCandidates, markPacketSubmitted, packetIdFor, PacketError } from "./layers/generator/AgentPackets.js"
export { VERSION } from "./version.js"
export { ImproveComposed, ImproveLive } from "./layers/improve/ImproveLive.js"
export { ImproveStoreSqlite } from "./layers/sqlite/ImproveStoreSqlite.js"
export { SandboxIndexMiniSearch } from "./layers/memory/SandboxIndexMiniSearch.js"
export { BindingsSqlite, BindingsMemory } from "./layers/sqlite/BindingsSqlite.js"
export { EnvFilesNode } from "./layers/fs/EnvFilesNode.js"
export { ChildProcessNode } from "./layers/process/ChildProcessNode.js"
export { CredentialsLive } from "./layers/runtime/CredentialsLive.js"
