import * as Args from "@effect/cli/Args"
import * as Command from "@effect/cli/Command"
import { Effect } from "effect"
import { bundleCommand } from "./bundle.js"
import { configCommand } from "./config.js"
import { createCommand } from "./create.js"
import { curateCommand } from "./curate.js"
import { distilCommand } from "./distil.js"
import { feedbackCommand } from "./feedback.js"
import { healthCommand } from "./health.js"
import { importCommand } from "./import.js"
import { indexCommand } from "./index.js"
import { infoCommand } from "./info.js"
import { initCommand } from "./init.js"
import { ledgerCommand } from "./ledger.js"
import { lintCommand } from "./lint.js"
import { proposalCommand } from "./proposal.js"
import { registryCommand } from "./registry.js"
import { rememberCommand } from "./remember.js"
import { searchCommand } from "./search.js"
import { showCommand } from "./show.js"

// The completions command describes the tree it belongs to; the reference is filled in below.
const tree: { current?: Command.Command<"akm", never, unknown, unknown> } = {}

const completionsCommand = Command.make(
  "completions",
  {
    shell: Args.choice([["bash", "bash"], ["zsh", "zsh"], ["fish", "fish"]] as const, { name: "shell" }).pipe(Args.withDescription("bash, zsh or fish"))
  },
  ({ shell }): Effect.Effect<void> =>
    Effect.gen(function* () {
      const root = tree.current!
      const lines =
        shell === "bash" ? yield* Command.getBashCompletions(root, "akm")
        : shell === "zsh" ? yield* Command.getZshCompletions(root, "akm")
        : yield* Command.getFishCompletions(root, "akm")
      process.stdout.write(`${lines.join("\n")}\n`)
    })
).pipe(Command.withDescription("Print a shell completion script. Example: akm completions bash > ~/.local/share/bash-completion/completions/akm"))

/** The command tree: every command of this release. */
export const akmCommand = Command.make("akm").pipe(
  Command.withDescription(
    "A local-first agent knowledge workspace: add bundles of skills and notes, then search, show and curate them offline. Start with `akm init`, then `akm bundle add <folder>`. Example: akm search \"rotate database credentials\""
  ),
  Command.withSubcommands([initCommand, infoCommand, configCommand, bundleCommand, lintCommand, indexCommand, searchCommand, showCommand, curateCommand, feedbackCommand, healthCommand, rememberCommand, importCommand, createCommand, ledgerCommand, distilCommand, proposalCommand, registryCommand, completionsCommand])
)

tree.current = akmCommand as unknown as Command.Command<"akm", never, unknown, unknown>
