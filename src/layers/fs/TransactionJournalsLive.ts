import { Effect, Layer } from "effect"
import { TransactionJournals } from "../../services/TransactionJournals.js"
import { WorkspaceConfig } from "../../services/WorkspaceConfig.js"
import { workspaceRoots } from "./transaction/Bundles.js"
import { inspectJournals, workspaceDirs } from "./transaction/Inspect.js"

/** The journal check over the workspace's txn/ directory, bundle roots from config.yaml and akm.lock. */
export const makeTransactionJournals = (workspace: WorkspaceConfig["Type"]): TransactionJournals["Type"] => ({
  inspect: Effect.suspend(() => inspectJournals(workspace.paths.txnDir, workspaceDirs(workspace.paths), workspaceRoots(workspace)))
})

export const TransactionJournalsLive = Layer.effect(TransactionJournals, Effect.map(WorkspaceConfig, makeTransactionJournals))
