import * as Args from "@effect/cli/Args"
import * as Command from "@effect/cli/Command"
import * as Options from "@effect/cli/Options"
import { Effect, Option } from "effect"
import * as path from "node:path"
import { UsageError } from "../domain/Errors.js"
import type { ValueSource } from "../services/EnvFiles.js"
import { envExport, envList, envRun } from "../programs/runtime/env.js"
import { envSet } from "../programs/runtime/setValue.js"
import { globalOptions } from "./options.js"
import { table, type View } from "./render.js"
import { callerContext, runCommand } from "./run.js"

type Listed = Effect.Effect.Success<ReturnType<typeof envList>>

const listView: View<Listed> = {
  text: (r, s) =>
    r.items.length === 0
      ? s.dim("no env items (add a bundle with env/*.env files)")
      : r.items
        .map((item) => {
          if (!("source" in item)) return `${s.bold(item.ref)}${item.description === undefined ? "" : ` — ${item.description}`}\n  ${s.dim(item.keys.join(", ") || "(no keys)")}`
          return [
            `${s.bold(item.ref)}${item.description === undefined ? "" : ` — ${item.description}`} ${s.dim(`(${item.source})`)}`,
            table(item.keys.map((k) => [`  ${k.name}`, k.required ? s.yellow("required") : s.dim("set"), k.dangerous === true ? s.red("dangerous") : "", k.default === undefined ? "" : s.dim(`default: ${k.default}`), k.description ?? ""])),
            ...(item.bindings.length === 0 ? [] : [s.dim(`  bound as ${item.bindings.map((b) => `${b.alias}${b.current ? "" : " (changed: akm bind --update)"}`).join(", ")}`)])
          ].join("\n")
        })
        .join("\n"),
  rows: (r) => r.items
}

const only = Options.text("only").pipe(Options.withPseudoName("KEY"), Options.withDescription("repeatable: inject only this key"), Options.repeated)
const allowDangerous = Options.text("allow-dangerous").pipe(Options.withPseudoName("KEY"), Options.withDescription("repeatable: inject this loader or shell-hook key (PATH, LD_*, NODE_OPTIONS …) from a git, npm or website bundle"), Options.repeated)

const listCommand = Command.make(
  "list",
  { ref: Args.text({ name: "ref" }).pipe(Args.withDescription("one env item: its keys, required or set, descriptions"), Args.optional), ...globalOptions },
  (o) => runCommand(o, envList(Option.getOrUndefined(o.ref)), listView)
).pipe(Command.withDescription("List env items and their key names, descriptions and required keys — never values. Example: akm env list runtime//env/demo"))

const runEnvCommand = Command.make(
  "run",
  {
    target: Args.text({ name: "ref|alias" }).pipe(Args.withDescription("the env item, or the alias of its binding")),
    command: Args.text({ name: "command" }).pipe(Args.withDescription("after --: the program and its arguments, run without a shell"), Args.repeated),
    only,
    allowDangerous,
    ...globalOptions
  },
  (o) =>
    runCommand(
      o,
      envRun({ target: o.target, only: o.only, allowDangerous: o.allowDangerous }, o.command, callerContext().cwd),
      { text: () => "" },
      (r) => r.exit,
      false
    )
).pipe(Command.withDescription("Run a program with an env item's values in its environment only (no shell, nothing expanded); exits with the program's code. Example: akm env run runtime//env/demo -- node app.js"))

const exportCommand = Command.make(
  "export",
  {
    target: Args.text({ name: "ref|alias" }).pipe(Args.withDescription("the env item, or the alias of its binding")),
    out: Options.text("out").pipe(Options.withPseudoName("FILE"), Options.withDescription("the dotenv file to write (mode 0600); values never go to stdout")),
    only,
    allowDangerous,
    ...globalOptions
  },
  (o) =>
    runCommand(
      o,
      o.out === "-" || o.out === "/dev/stdout"
        ? Effect.fail(new UsageError({ message: "env export never writes values to stdout", hint: "name a file with --out FILE (written with mode 0600)" }))
        : envExport({ target: o.target, only: o.only, allowDangerous: o.allowDangerous }, path.resolve(callerContext().cwd, o.out)),
      { text: (r, s) => `${s.green("✓")} wrote ${r.keys.length} key${r.keys.length === 1 ? "" : "s"} of ${r.ref} to ${r.out} ${s.dim("(mode 0600)")}` }
    )
).pipe(Command.withDescription("Write an env item's values to a 0600 dotenv file (never stdout). Example: akm env export runtime//env/demo --out .env.local"))

/** Where a value comes from: stdin unless --from-file or --from-env; both is a usage error. */
export const valueSource = (fromFile: Option.Option<string>, fromEnv: Option.Option<string>): Effect.Effect<ValueSource, UsageError> =>
  Option.isSome(fromFile) && Option.isSome(fromEnv)
    ? Effect.fail(new UsageError({ message: "--from-file and --from-env contradict each other", hint: "give one source, or pipe the value on stdin" }))
    : Effect.succeed(
      Option.isSome(fromFile) ? { _tag: "file", path: path.resolve(callerContext().cwd, fromFile.value) } : Option.isSome(fromEnv) ? { _tag: "env", name: fromEnv.value } : { _tag: "stdin" }
    )

export const fromFile = Options.text("from-file").pipe(Options.withPseudoName("FILE"), Options.withDescription("read the value from a file (one trailing newline is dropped)"), Options.optional)
export const fromEnv = Options.text("from-env").pipe(Options.withPseudoName("VAR"), Options.withDescription("read the value from an environment variable"), Options.optional)

/** A value typed on the command line: refused without echoing it (it is already in shell history). */
export const valueOnArgv = (usage: string) =>
  new UsageError({
    message: "a value on the command line is refused: it would be kept in shell history and shown in the process list; nothing was written",
    hint: `pass it on stdin (\`printf %s "$VALUE" | ${usage}\`), or with --from-file FILE / --from-env VAR`
  })

const setCommand = Command.make(
  "set",
  {
    ref: Args.text({ name: "ref" }).pipe(Args.withDescription("the env item (created in a writable bundle when missing)")),
    key: Args.text({ name: "KEY" }).pipe(Args.withDescription("the key to set; the value comes from stdin, --from-file or --from-env")),
    extra: Args.text({ name: "value" }).pipe(Args.withDescription("(refused: never a value on the command line)"), Args.repeated),
    fromFile,
    fromEnv,
    ...globalOptions
  },
  (o) =>
    runCommand(
      o,
      o.extra.length > 0
        ? Effect.fail(valueOnArgv(`akm env set <ref> ${o.key.includes("=") ? "KEY" : o.key}`))
        : Effect.flatMap(valueSource(o.fromFile, o.fromEnv), (source) => envSet(o.ref, o.key, source)),
      { text: (r, s) => `${s.green("✓")} set ${r.key} in ${r.ref} ${s.dim(`(${r.file}, mode 0600)`)}` }
    )
).pipe(Command.withDescription("Set one key of an env file from stdin, --from-file or --from-env (never argv): an atomic 0600 write, no proposal. Example: printf %s \"$TOKEN\" | akm env set mine//env/deploy API_TOKEN"))

export const envCommand = Command.make("env").pipe(
  Command.withDescription("Run programs with env values; list, export and set them. Example: akm env run runtime//env/demo -- node app.js"),
  Command.withSubcommands([listCommand, runEnvCommand, exportCommand, setCommand])
)
