import * as Args from "@effect/cli/Args"
import * as Command from "@effect/cli/Command"
import { stringify as toYaml } from "yaml"
import { configGet, configList, configPath, configSet, configUnset } from "../programs/config.js"
import { globalOptions } from "./options.js"
import type { View } from "./render.js"
import { callerContext, runCommand } from "./run.js"

const key = Args.text({ name: "key" }).pipe(Args.withDescription("a dotted key such as search.limit or bundles.notes.writable"))

const valueText = (value: unknown): string => (typeof value === "string" ? value : toYaml(value).trimEnd())

/** Scalars stay on the key's line; lists and maps start on the next. */
const assignmentText = (value: unknown): string => (value !== null && typeof value === "object" ? `\n${valueText(value).replace(/^/gm, "  ")}` : ` ${valueText(value)}`)

const getView: View<{ key: string; value: unknown }> = { text: (r) => valueText(r.value) }
const setView: View<{ key: string; value: unknown }> = { text: (r, s) => `${s.green("✓")} ${r.key} =${assignmentText(r.value)}` }
const unsetView: View<{ key: string }> = { text: (r, s) => `${s.green("✓")} ${r.key} removed` }
const listView: View<{ file: string; config: unknown }> = { text: (r) => toYaml(r.config).trimEnd(), md: (r) => `\`${r.file}\`\n\n\`\`\`yaml\n${toYaml(r.config)}\`\`\`` }
const pathView: View<{ path: string; exists: boolean }> = { text: (r) => r.path }

const get = Command.make("get", { key, ...globalOptions }, (o) => runCommand(o, configGet(o.key), getView)).pipe(
  Command.withDescription("Print one config value. Example: akm config get search.limit")
)
const set = Command.make(
  "set",
  { key, value: Args.text({ name: "value" }).pipe(Args.withDescription("YAML value: text, a number, true/false or [a, b]")), ...globalOptions },
  (o) => runCommand(o, configSet(o.key, o.value, callerContext()), setView)
).pipe(Command.withDescription("Set a config value, keeping the file's comments and key order. Example: akm config set search.limit 30"))
const unset = Command.make("unset", { key, ...globalOptions }, (o) => runCommand(o, configUnset(o.key), unsetView)).pipe(
  Command.withDescription("Remove a config key. Example: akm config unset search.limit")
)
const list = Command.make("list", { ...globalOptions }, (o) => runCommand(o, configList(), listView)).pipe(
  Command.withDescription("Print the whole validated config. Example: akm config list --format yaml")
)
const path = Command.make("path", { ...globalOptions }, (o) => runCommand(o, configPath(), pathView)).pipe(
  Command.withDescription("Print the path of config.yaml. Example: $EDITOR \"$(akm config path --format text)\"")
)

export const configCommand = Command.make("config").pipe(
  Command.withDescription("Read and change config.yaml. Example: akm config list"),
  Command.withSubcommands([get, set, unset, list, path])
)
