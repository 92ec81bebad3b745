import * as Args from "@effect/cli/Args"
import * as Command from "@effect/cli/Command"
import * as Options from "@effect/cli/Options"
import { Effect, Option } from "effect"
import { bundleAdd, type BundleAddResult } from "../programs/bundle/add.js"
import { bundleCreate } from "../programs/bundle/create.js"
import { bundleList } from "../programs/bundle/list.js"
import { bundleRemove } from "../programs/bundle/remove.js"
import { bundleRename, type BundleRenameResult } from "../programs/bundle/rename.js"
import { bundleShow } from "../programs/bundle/show.js"
import { bundleUpdate, type BundleUpdateResult } from "../programs/bundle/update.js"
import type { BundleView } from "../programs/bundle/view.js"
import { UsageError } from "../domain/Errors.js"
import { sourceLocator } from "../domain/Source.js"
import { bundleExportCommand } from "./bundleExport.js"
import { globalOptions } from "./options.js"
import { forTerminal, styleFor, table, type Style, type View } from "./render.js"
import { listView } from "./bundleListView.js"
import { callerContext, runCommand } from "./run.js"
import { plural } from "../domain/Plural.js"

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
    ["diagnostics", `${plural(b.diagnostics.error, "error")}, ${plural(b.diagnostics.warning, "warning")}`],
    ...(b.refresh === undefined ? [] : [["refresh", `every ${b.refresh}`]]),
    ...(b.partial === true ? [["partial", s.yellow("yes — the snapshot hit a crawl limit")]] : []),
    ...(b.stale === undefined ? [] : [["stale", s.yellow(`${b.stale.reason} (since ${b.stale.since})`)]])
  ])

const bundleView: View<BundleView> = { text: bundleText }

/** An unsure adapter detection is a hint on stderr (stdout keeps the result; json has it as `detection`). */
const noteDetection = (r: BundleAddResult) =>
  Effect.sync(() => {
    if (r.detection === undefined) return
    const s = styleFor(process.stderr.isTTY === true, process.env)
    const lines = [
      `${s.yellow("note:")} adapter ${r.adapter} is a guess: ${r.detection.reason}`,
      ...r.detection.suggestions.map((command, i) => `${s.dim(i === 0 ? "hint:" : "     ")} ${command}`)
    ]
    process.stderr.write(forTerminal(`${lines.join("\n")}\n`))
  })

const add = Command.make(
  "add",
  {
    source: Args.text({ name: "source" }).pipe(Args.withDescription("a folder (./kb, ~/notes), a git URL (https://…/kb.git, github:owner/repo#ref, file:///…), npm:@scope/pkg@^2, or a website with --website")),
    name: Options.text("name").pipe(Options.withDescription("bundle name (default: from the folder, repository, package or host)"), Options.optional),
    adapter,
    writable: Options.boolean("writable").pipe(Options.withDescription("allow akm to write to this bundle (proposals)")),
    readOnly: Options.boolean("read-only").pipe(Options.withDescription("never write to this bundle")),
    git: Options.boolean("git").pipe(Options.withDescription("install a pinned copy of a local git checkout's committed tree instead of using the folder in place")),
    ref: Options.text("ref").pipe(Options.withDescription("git branch, tag or commit to install (default: HEAD)"), Options.optional),
    website: Options.boolean("website").pipe(Options.withDescription("crawl the https:// URL as a website snapshot instead of cloning it")),
    allowInsecure: Options.boolean("allow-insecure").pipe(Options.withDescription("allow a website or git repository over plain http:// (saved in config.yaml, so updates repeat it)")),
    refresh: Options.text("refresh").pipe(Options.withPseudoName("interval"), Options.withDescription("how often `akm bundle update --due` refreshes it: 30m, 12h, 7d, 2w"), Options.optional),
    ...globalOptions
  },
  (o) =>
    runCommand(
      o,
      o.writable && o.readOnly
        ? Effect.fail(new UsageError({ message: "--writable and --read-only contradict each other", hint: "give one of them, or neither to use the source's default" }))
        : Effect.tap(bundleAdd({
        source: o.source,
        name: Option.getOrUndefined(o.name),
        adapter: Option.getOrUndefined(o.adapter),
        writable: o.writable ? true : o.readOnly ? false : undefined,
        git: o.git,
        ref: Option.getOrUndefined(o.ref),
        website: o.website,
        allowInsecure: o.allowInsecure,
        refresh: Option.getOrUndefined(o.refresh),
        ...callerContext()
      }), (r) => (o.quiet ? Effect.void : noteDetection(r))),
      bundleView
    )
).pipe(Command.withDescription("Add a bundle, record it in config.yaml and akm.lock, and index it. Example: akm bundle add npm:@acme/agent-skills@^2"))

const updateText = (r: BundleUpdateResult, s: Style): string => {
  const short = (revision: string | null) => (revision === null ? "-" : revision.length > 12 && /^[0-9a-f]+$/.test(revision) ? revision.slice(0, 12) : revision)
  const lines = [
    ...r.updated.map((u) => `${s.green("✓")} ${u.name}  ${u.from === u.to ? "reindexed" : `${short(u.from)} → ${short(u.to)}`}  ${s.dim(plural(u.items, "item"))}${u.partial === true ? s.yellow(" (partial)") : ""}`),
    ...r.upToDate.map((u) => `${s.dim("·")} ${u.name}  up to date ${s.dim(short(u.revision))}`),
    ...r.failed.map((f) => `${s.red("✗")} ${f.name}  ${f.reason}${f.kept === null ? "" : s.dim(` (keeping ${short(f.kept)})`)}`),
    ...r.notDue.map((n) => `${s.dim("·")} ${n.name}  ${s.dim(`not due until ${n.dueAt}`)}`)
  ]
  const total = r.updated.length + r.upToDate.length + r.failed.length
  return [...(lines.length === 0 ? ["nothing to update"] : lines), ...(total === 0 ? [] : [`${r.ok ? s.green("✓") : s.red("✗")} ${r.updated.length} updated, ${r.upToDate.length} up to date, ${r.failed.length} failed`])].join("\n")
}

const update = Command.make(
  "update",
  {
    name: Args.text({ name: "name" }).pipe(Args.withDescription("the bundle to update (or --all / --due)"), Args.optional),
    all: Options.boolean("all").pipe(Options.withDescription("update every bundle")),
    due: Options.boolean("due").pipe(Options.withDescription("update the bundles whose refresh interval has elapsed (for a scheduled task)")),
    force: Options.boolean("force").pipe(Options.withDescription("re-fetch and reindex even when the source reports no change")),
    ...globalOptions
  },
  (o) =>
    runCommand(
      o,
      bundleUpdate({ name: Option.getOrUndefined(o.name), all: o.all, due: o.due, force: o.force }),
      { text: updateText, rows: (r) => [...r.updated.map((u) => ({ status: "updated", ...u })), ...r.upToDate.map((u) => ({ status: "up-to-date", ...u })), ...r.failed.map((f) => ({ status: "failed", ...f }))] },
      (r) => (r.ok ? 0 : 1)
    )
).pipe(Command.withDescription("Fetch bundles' new revisions and reindex them; a failure keeps the last good revision (exit 1). Example: akm bundle update --due"))

const rename = Command.make(
  "rename",
  {
    from: Args.text({ name: "old" }).pipe(Args.withDescription("the bundle's current name")),
    to: Args.text({ name: "new" }).pipe(Args.withDescription("its new name")),
    ...globalOptions
  },
  (o) =>
    runCommand(o, bundleRename(o.from, o.to), {
      text: (r: BundleRenameResult, s) => `${s.green("✓")} renamed bundle ${r.from} → ${r.to}${s.dim(` (refs are now ${r.to}//…)`)}`
    })
).pipe(Command.withDescription("Rename a bundle: its refs, learned usage, index rows, cache copy and config move to the new name. Example: akm bundle rename team kb"))

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
  Command.withDescription("Add, create, list, show, update, rename and remove bundles. Example: akm bundle add ./kb"),
  Command.withSubcommands([add, create, list, show, update, rename, remove, bundleExportCommand])
)
