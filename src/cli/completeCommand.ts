import * as Args from "@effect/cli/Args"
import * as Command from "@effect/cli/Command"
import { Effect } from "effect"
import { completionScript, SHELLS, type Shell } from "./completionScripts.js"

/** `akm completions bash|zsh|fish`: the script that asks `akm __complete` (docs/decisions/0015-completions.md). */
export const completionsCommand = Command.make(
  "completions",
  {
    shell: Args.choice(SHELLS.map((shell): [Shell, Shell] => [shell, shell]), { name: "shell" }).pipe(Args.withDescription("bash, zsh or fish"))
  },
  ({ shell }): Effect.Effect<void> => Effect.sync(() => void process.stdout.write(completionScript(shell)))
).pipe(
  Command.withDescription(
    "Print a shell completion script: it completes commands, options, their values, bundle names and refs (read from the index). Example: akm completions bash > ~/.local/share/bash-completion/completions/akm"
  )
)
