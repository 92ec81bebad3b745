import * as Args from "@effect/cli/Args"
import * as Command from "@effect/cli/Command"
import * as Options from "@effect/cli/Options"
import { Effect, Option } from "effect"
import { bundleAdd } from "../programs/bundle/add.js"
import { bundleCreate } from "../programs/bundle/create.js"
import { bundleList } from "../programs/bundle/list.js"
import { bundleRemove } from "../programs/bundle/remove.js"
import { bundleShow } from "../programs/bundle/show.js"
import type { BundleView } from "../programs/bundle/view.js"
import { UsageError } from "../domain/Errors.js"
import { sourceLocator } from "../domain/Source.js"
import { globalOptions } from "./options.js"
import { table, type Style, type View } from "./render.js"
import { callerContext, runCommand } from "./run.js"

const name = Args.text({ name: "name" }).pipe(Args.withDescription("the bundle's name"))
const adapter = Options.text("adapter").pipe(Options.withDescription("the adapter to use (default: detected from the files)"), Options.optional)

const bundleText = (b: BundleView, s: Style): string =>
  table([
    ["name", `${s.bold(b.name)}${b.default ? s.dim(" (default)") : ""}`],
    ["source", `${b.source.kind} ${sourceLocator(b.source)}`],
    ["adapter", b.adapter],
    ["writable", b.writable ? "yes" : "no"],
    ["root", b.root ?? "-"],
    ["revision", b.revision ?? "-"],
    ["items", String(b.items)],
    ["diagnostics", `${b.diagnostics.error} errors, ${b.diagnostics.warning} warnings`],
    ...(b.stale === undefined ? [] : [["stale", s.yellow(`${b.stale.reason} (since ${b.stale.since})`)]])
  ])

const bundleView: View<BundleView> = { text: bundleText }

const listView: View<{ bundles: ReadonlyArray<BundleView>; defaultBundle: string | null }> = {
  text: (r, s) =>
    r.bundles.length === 0
      ? "no bundles yet — add one with: akm bundle add <folder>"
      : table([
        [s.dim("NAME"), s.dim("ADAPTER"), s.dim("ITEMS"), s.dim("WRITABLE"), s.dim("SOURCE")],
        ...r.bundles.map((b) => [`${b.name}${b.default ? "*" : ""}`, b.adapter, String(b.items), b.writable ? "yes" : "no", `${b.source.kind} ${sourceLocator(b.source)}`])
      ]),
  md: (r) =>
    ["| name | adapter | items | writable | source |", "|---|---|---|---|---|", ...r.bundles.map((b) => `| ${b.name}${b.default ? " (default)" : ""} | ${b.adapter} | ${b.items} | ${b.writable ? "yes" : "no"} | ${sourceLocator(b.source)} |`)].join("\n"),
  rows: (r) => r.bundles
}

const add = Command.make(
  "add",
  {
    source: Args.text({ name: "source" }).pipe(Args.withDescription("a folder (./kb, ~/notes); git, npm and website sources arrive later")),
    name: Options.text("name").pipe(Options.withDescription("bundle name (default: the folder's name)"), Options.optional),
    adapter,
    writable: Options.boolean("writable").pipe(Options.withDescription("allow akm to write to this bundle (proposals)")),
    readOnly: Options.boolean("read-only").pipe(Options.withDescription("never write to this bundle")),
    ...globalOptions
  },
  (o) =>
    runCommand(
      o,
      o.writable && o.readOnly
        ? Effect.fail(new UsageError({ message: "--writable and --read-only contradict each other", hint: "give one of them, or neither to use the source's default" }))
        : bundleAdd({
        source: o.source,
        name: Option.getOrUndefined(o.name),
        adapter: Option.getOrUndefined(o.adapter),
        writable: o.writable ? true : o.readOnly ? false : undefined,
        ...callerContext()
      }),
      bundleView
    )
).pipe(Command.withDescription("Add a bundle and record it in config.yaml and akm.lock. Example: akm bundle add ./examples/notes --name notes"))

const create = Command.make(
  "create",
  {
    name,
    dir: Options.text("dir").pipe(Options.withDescription("folder for the bundle (default: $AKM_DATA_DIR/bundles/<name>)"), Options.optional),
    adapter,
    setDefault: Options.boolean("set-default").pipe(Options.withDescription("make it the default bundle for writes")),
    ...globalOptions
  },
  (o) =>
    runCommand(
      o,
      bundleCreate({ name: o.name, dir: Option.getOrUndefined(o.dir), adapter: Option.getOrUndefined(o.adapter), setDefault: o.setDefault, ...callerContext() }),
      bundleView
    )
).pipe(Command.withDescription("Create a new, empty writable bundle. Example: akm bundle create mine --set-default"))

const list = Command.make("list", { ...globalOptions }, (o) => runCommand(o, bundleList(), listView)).pipe(
  Command.withDescription("List the configured bundles. Example: akm bundle list --format json")
)

const show = Command.make("show", { name, ...globalOptions }, (o) => runCommand(o, bundleShow(o.name), bundleView)).pipe(
  Command.withDescription("Show one bundle's config, lock entry and index state. Example: akm bundle show notes")
)

const remove = Command.make(
  "remove",
  { name, yes: Options.boolean("yes").pipe(Options.withAlias("y"), Options.withDescription("do not ask (removal never deletes your own folder)")), ...globalOptions },
  (o) =>
    runCommand(
      o,
      Effect.suspend(() => bundleRemove(o.name)),
      { text: (r: Effect.Effect.Success<ReturnType<typeof bundleRemove>>, s) => `${s.green("✓")} removed bundle ${r.name}${r.keptFolder === null ? "" : s.dim(` (your folder ${r.keptFolder} is untouched)`)}` }
    )
).pipe(Command.withDescription("Remove a bundle from the workspace; a local folder itself is kept. Example: akm bundle remove notes -y"))

export const bundleCommand = Command.make("bundle").pipe(
  Command.withDescription("Add, create, list, show and remove bundles. Example: akm bundle add ./kb"),
  Command.withSubcommands([add, create, list, show, remove])
)
