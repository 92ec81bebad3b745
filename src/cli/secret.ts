import * as Args from "@effect/cli/Args"
import * as Command from "@effect/cli/Command"
import { Effect } from "effect"
import { secretList } from "../programs/runtime/secretList.js"
import { secretSet } from "../programs/runtime/setValue.js"
import { fromEnv, fromFile, valueOnArgv, valueSource } from "./env.js"
import { globalOptions } from "./options.js"
import { table, type View } from "./render.js"
import { runCommand } from "./run.js"

type Listed = Effect.Effect.Success<ReturnType<typeof secretList>>

const listView: View<Listed> = {
  text: (r, s) =>
    r.secrets.length === 0
      ? s.dim("no secrets (set one with `printf %s \"$TOKEN\" | akm secret set <bundle>//secrets/<name>`)")
      : table([["SECRET", "BUNDLE"].map(s.dim), ...r.secrets.map((x) => [x.ref, x.bundle])]),
  rows: (r) => r.secrets
}

const listCommand = Command.make("list", { ...globalOptions }, (o) => runCommand(o, secretList(), listView)).pipe(
  Command.withDescription("List secret items by name (values are never read). Example: akm secret list")
)

const setCommand = Command.make(
  "set",
  {
    ref: Args.text({ name: "ref" }).pipe(Args.withDescription("the secret, <bundle>//secrets/<name> (created when missing)")),
    extra: Args.text({ name: "value" }).pipe(Args.withDescription("(refused: never a value on the command line)"), Args.repeated),
    fromFile,
    fromEnv,
    ...globalOptions
  },
  (o) =>
    runCommand(
      o,
      o.extra.length > 0 ? Effect.fail(valueOnArgv("akm secret set <ref>")) : Effect.flatMap(valueSource(o.fromFile, o.fromEnv), (source) => secretSet(o.ref, source)),
      { text: (r, s) => `${s.green("✓")} set ${r.ref} ${s.dim(`(${r.file}, ${r.bytes} bytes, mode 0600)`)}` }
    )
).pipe(Command.withDescription("Set a secret from stdin, --from-file or --from-env (never argv; one trailing newline dropped; at most 5 MiB; mode 0600). Example: printf %s \"$TOKEN\" | akm secret set mine//secrets/api-token"))

export const secretCommand = Command.make("secret").pipe(
  Command.withDescription("List secrets by name and set one from stdin; reference one anywhere as secret:<ref>. Example: akm secret list"),
  Command.withSubcommands([listCommand, setCommand])
)
