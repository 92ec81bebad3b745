import * as Command from "@effect/cli/Command"
import { storageMigrate } from "../programs/storageMigrate.js"
import type { TransferReport } from "../services/StateTransfer.js"
import { globalOptions } from "./options.js"
import { table, type View } from "./render.js"
import { runCommand } from "./run.js"

const migrateView: View<TransferReport> = {
  text: (r, s) =>
    [
      `${s.green("✓")} copied the workspace's state from ${r.from} to ${r.to}; every count matches`,
      "",
      table([[s.dim("TABLE"), s.dim("STATE.DB"), s.dim("POSTGRES")], ...r.tables.map((t) => [t.table, String(t.source), String(t.target)])])
    ].join("\n"),
  rows: (r) => r.tables
}

const migrateCommand = Command.make("migrate", { ...globalOptions }, (o) => runCommand(o, storageMigrate(), migrateView)).pipe(
  Command.withDescription(
    "Copy this workspace's state (events, usage, feedback, proposals, evidence) from state.db into the PostgreSQL database of storage.url, in one transaction that commits only when every count matches; the database must hold no akm state yet. Example: akm storage migrate"
  )
)

export const storageCommand = Command.make("storage").pipe(
  Command.withDescription("Where proposals, usage and events live (config storage.kind: sqlite or postgres; docs/team.md). Example: akm storage migrate"),
  Command.withSubcommands([migrateCommand])
)
