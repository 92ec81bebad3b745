import * as Args from "@effect/cli/Args"
import * as Command from "@effect/cli/Command"
import * as Options from "@effect/cli/Options"
import { Effect, Option } from "effect"
import { UsageError } from "../domain/Errors.js"
import { bind, bindings, bindUpdate, unbind } from "../programs/runtime/bind.js"
import { globalOptions } from "./options.js"
import { table, type View } from "./render.js"
import { runCommand } from "./run.js"

type Bound = Effect.Effect.Success<ReturnType<typeof bind>>
type Updated = Effect.Effect.Success<ReturnType<typeof bindUpdate>>
type Listed = Effect.Effect.Success<ReturnType<typeof bindings>>

const references = (env: Readonly<Record<string, string>>): string => Object.entries(env).map(([k, v]) => `${k}=${v}`).join(", ")

const bindView: View<Bound | Updated> = {
  text: (r, s) =>
    "status" in r
      ? [`${s.green("✓")} bound ${r.ref} as ${s.bold(r.alias)} ${s.dim(`(${r.kind}, digest ${r.digest.slice(0, 12)})`)}`, ...(Object.keys(r.env).length === 0 ? [] : [s.dim(`  env: ${references(r.env)}`)]), ...(r.dangerous.length === 0 ? [] : [s.yellow(`  sets ${r.dangerous.join(", ")}, which can change what programs load or run${r.source === "filesystem" ? "" : `: env run needs ${r.dangerous.map((k) => `--allow-dangerous ${k}`).join(" ")}`}`)]), s.dim(`  run it: akm env run ${r.alias} -- <command>`)].join("\n")
      : r.changed
        ? [`${s.green("✓")} ${r.alias}: approved ${r.ref} at ${r.to.slice(0, 12)} (was ${r.from.slice(0, 12)})`, ...(r.diff.trim() === "" ? [s.dim("  key names and text unchanged (values are never shown)")] : [r.diff])].join("\n")
        : `${s.dim("=")} ${r.alias}: ${r.ref} is unchanged since it was approved`
}

export const bindCommand = Command.make(
  "bind",
  {
    target: Args.text({ name: "export-ref" }).pipe(Args.withDescription("the export to approve (an env file, workflow, task or script), or with --update the alias")),
    as: Options.text("as").pipe(Options.withDescription("the alias to run it by (default: its last path segment)"), Options.optional),
    param: Options.text("param").pipe(Options.withPseudoName("k=v"), Options.withDescription("repeatable: a parameter"), Options.repeated),
    env: Options.text("env").pipe(Options.withPseudoName("KEY=secret:<ref>|env:VAR"), Options.withDescription("repeatable: where a key's value comes from, a reference, never a value"), Options.repeated),
    update: Options.boolean("update").pipe(Options.withDescription("approve the current definition of an existing alias after reviewing what changed")),
    ...globalOptions
  },
  (o) =>
    runCommand(
      o,
      o.update
        ? Option.isSome(o.as) || o.param.length > 0 || o.env.length > 0
          ? Effect.fail(new UsageError({ message: "--update takes only the alias", hint: "to change params or env, `akm unbind <alias>` and bind again" }))
          : bindUpdate(o.target)
        : bind({ ref: o.target, alias: Option.getOrUndefined(o.as), params: o.param, env: o.env }),
      bindView
    )
).pipe(Command.withDescription("Approve a bundle's export (env file, workflow, task, script) at its current digest: nothing from a git, npm or website bundle runs or receives a value until it is bound. Example: akm bind team//env/deploy --as deploy --env API_TOKEN=secret:mine//secrets/deploy-token"))

const listView: View<Listed> = {
  text: (r, s) =>
    r.bindings.length === 0
      ? s.dim("no bindings (bind an export with `akm bind <ref> --as <alias>`)")
      : table([
        ["ALIAS", "EXPORT", "KIND", "STATUS", "ENV"].map(s.dim),
        ...r.bindings.map((b) => [b.alias, b.ref, b.kind, b.status === "current" ? s.green("current") : s.yellow(b.status === "changed" ? "changed: akm bind --update" : "missing"), references(b.env)])
      ]),
  rows: (r) => r.bindings
}

export const bindingsCommand = Command.make("bindings", { ...globalOptions }, (o) => runCommand(o, bindings(), listView)).pipe(
  Command.withDescription("List bindings: alias, export, kind, whether the export still has the approved digest, env references. Example: akm bindings")
)

export const unbindCommand = Command.make(
  "unbind",
  { alias: Args.text({ name: "alias" }).pipe(Args.withDescription("the binding to remove")), ...globalOptions },
  (o) => runCommand(o, unbind(o.alias), { text: (r, s) => `${s.green("✓")} removed binding ${r.alias} (${r.ref})` })
).pipe(Command.withDescription("Remove a binding; its export can no longer run until bound again. Example: akm unbind deploy"))
