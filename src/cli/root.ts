import * as Command from "@effect/cli/Command"
import { bundleCommand } from "./bundle.js"
import { completionsCommand } from "./completeCommand.js"
import { configCommand } from "./config.js"
import { createCommand } from "./create.js"
import { curateCommand } from "./curate.js"
import { distilCommand } from "./distil.js"
import { evidenceCommand } from "./evidence.js"
import { feedbackCommand } from "./feedback.js"
import { healthCommand } from "./health.js"
import { importCommand } from "./import.js"
import { improveCommand } from "./improve.js"
import { indexCommand } from "./index.js"
import { infoCommand } from "./info.js"
import { initCommand } from "./init.js"
import { ledgerCommand } from "./ledger.js"
import { lintCommand } from "./lint.js"
import { mcpCommand } from "./mcpCommand.js"
import { proposalCommand } from "./proposal.js"
import { registryCommand } from "./registry.js"
import { rememberCommand } from "./remember.js"
import { mapsCommand, routersCommand } from "./routers.js"
import { briefCommand } from "./brief.js"
import { scopeCommand } from "./scope.js"
import { rulesCommand } from "./rules.js"
import { searchCommand } from "./search.js"
import { showCommand } from "./show.js"
import { bindCommand, bindingsCommand, unbindCommand } from "./bind.js"
import { envCommand } from "./env.js"
import { secretCommand } from "./secret.js"
import { memoryCommand } from "./memory.js"

/** The command tree: every command of this release. */
export const akmCommand = Command.make("akm").pipe(
  Command.withDescription(
    "A local-first agent knowledge workspace: add bundles of skills and notes, then search, show and curate them offline. Start with `akm init`, then `akm bundle add <folder>`. Example: akm search \"rotate database credentials\""
  ),
  Command.withSubcommands([initCommand, infoCommand, configCommand, bundleCommand, lintCommand, indexCommand, searchCommand, showCommand, curateCommand, feedbackCommand, healthCommand, rememberCommand, importCommand, createCommand, ledgerCommand, distilCommand, proposalCommand, registryCommand, completionsCommand, evidenceCommand, improveCommand, bindCommand, bindingsCommand, unbindCommand, envCommand, secretCommand, rulesCommand, routersCommand, mapsCommand, mcpCommand, briefCommand, scopeCommand, memoryCommand])
)

