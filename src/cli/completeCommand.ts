import * as Args from "@effect/cli/Args"
import * as Command from "@effect/cli/Command"
import { Effect } from "effect"
import { completionScript, SHELLS, type Shell } from "./completionScripts.js"
import { globalOptions } from "./options.js"

/** `akm completions bash|zsh|fish`: the script that asks `akm __complete` (docs/decisions/0015-completions.md). */
export const completionsCommand = Command.make(
  "completions",
  {
    // Accepted like on every command (help.ts lists them for each); the script is the same whatever they say.
    ...globalOptions,
    shell: Args.choice(SHELLS.map((shell): [Shell, Shell] => [shell, shell]), { name: "shell" }).pipe(Args.withDescription("bash, zsh or fish"))
  },
  ({ shell }): Effect.Effect<void> => Effect.sync(() => void process.stdout.write(completionScript(shell)))
).pipe(
  Command.withDescription(
    'Print a shell completion script. It completes commands, options and their values, and bundle names and refs from the index. Save it where your shell looks: for zsh as "${fpath[1]}/_akm", for fish as ~/.config/fish/completions/akm.fish. Example: akm completions bash > ~/.local/share/bash-completion/completions/akm'
  )
)
