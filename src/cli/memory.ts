import * as Args from "@effect/cli/Args"
import * as Command from "@effect/cli/Command"
import * as Options from "@effect/cli/Options"
import { Effect, FiberRef, Layer, Option } from "effect"
import { GeneratorLive } from "../layers/generator/GeneratorLive.js"
import { makeNoGenerator } from "../layers/generator/GeneratorNone.js"
import { Generator } from "../services/Generator.js"
import { shortId } from "../domain/Proposal.js"
import { memoryConsolidate, type ConsolidateResult } from "../programs/memory/consolidate.js"
import { memoryHold, type HoldResult } from "../programs/memory/hold.js"
import { memoryPurge, type PurgeResult } from "../programs/memory/purge.js"
import { memoryRestore, type RestoreResult } from "../programs/memory/restore.js"
import { memoryStatus, type MemoryStatus } from "../programs/memory/status.js"
import { globalOptions } from "./options.js"
import { table, type Style, type View } from "./render.js"
import { cliSeams, runCommand } from "./run.js"

const stateText = (state: string, s: Style) => (state === "ok" ? s.green(state) : state === "blocked" ? s.red(state) : s.yellow(state))

const statusView: View<MemoryStatus> = {
  text: (r, s) =>
    [
      r.tiers.length === 0
        ? "no memory tiers (no configured bundle has memories: akm, okf and project bundles do)"
        : table([
          [s.dim("BUNDLE"), s.dim("ITEMS"), s.dim("LOW/HIGH"), s.dim("BYTES"), s.dim("HIGH BYTES"), s.dim("STATE")],
          ...r.tiers.map((t) => [t.bundle, String(t.items), `${t.lowWaterItems}/${t.highWaterItems}`, String(t.bytes), String(t.highWaterBytes), stateText(t.state, s)])
        ]),
      `archive: ${r.archive.blobs} blob${r.archive.blobs === 1 ? "" : "s"}, ${r.archive.bytes} bytes`,
      ...r.archive.missing.map((m) => s.red(`  missing blob for ${m.ref} (sha256/${m.digest.slice(0, 12)}…): it cannot be restored`)),
      ...(r.queued === 0 ? [] : [s.yellow(`${r.queued} background memor${r.queued === 1 ? "y" : "ies"} queued while a tier is blocked`)]),
      ...r.problems.map((p) => s.yellow(`  ${p.message}`))
    ].join("\n"),
  rows: (r) => r.tiers
}

const intakeLines = (r: ConsolidateResult, s: Style): ReadonlyArray<string> => [
  ...(r.intake.written.length === 0 ? [] : [s.green(`wrote ${r.intake.written.length} queued background memor${r.intake.written.length === 1 ? "y" : "ies"}`)]),
  ...r.intake.waiting.map((w) => s.yellow(`${w.count} background memor${w.count === 1 ? "y" : "ies"} still queued for ${w.bundle}: ${w.why}`))
]

const consolidateView: View<ConsolidateResult> = {
  text: (r, s) =>
    r.tiers.length === 0
      ? ["no memory tiers to consolidate", ...intakeLines(r, s)].join("\n")
      : r.tiers
        .flatMap((t) => [
          `${t.retired.length === 0 ? s.dim("–") : s.green("✓")} ${t.bundle}: ${t.before.items} → ${t.after.items} items (low water ${t.lowWaterItems}, high ${t.highWaterItems}) ${stateText(t.state, s)}${r.dryRun ? s.dim(" (dry run)") : ""}`,
          ...Object.entries(t.retired.reduce<Record<string, number>>((n, x) => ({ ...n, [x.reason]: (n[x.reason] ?? 0) + 1 }), {})).map(([reason, n]) => `  ${r.dryRun ? "would retire" : t.mode === "overlay" ? "hid (overlay)" : "retired"} ${n} ${reason}`),
          ...t.consolidated.flatMap((c) => [
            `  ${c.outcome === "compact" ? "compacted" : "formalized"} ${c.sources.length} related memor${c.sources.length === 1 ? "y" : "ies"}${c.ref === undefined ? "" : ` into ${c.ref}`}${c.skipped === undefined ? `: ${c.retired.length} source${c.retired.length === 1 ? "" : "s"} ${c.proposal?.status === "accepted" ? "retired" : "retire once the proposal is accepted"}` : ""}`,
            ...(c.skipped === undefined ? [] : [s.dim(`    ${c.skipped}`)]),
            ...c.kept.map((k) => s.yellow(`    kept ${k.ref}: "${k.claim}" is not in the new item (${k.reason})`)),
            ...c.qualified.map((q) => s.dim(`    kept both values: ${q}`))
          ]),
          ...t.proposals.map((p) => s.dim(`  proposal ${shortId(p.id)} ${p.status} (${p.changeClass})${p.hint === undefined ? "" : `: ${p.hint}`}`)),
          ...t.problems.map((p) => s.yellow(`  ${p.message}`))
        ])
        .concat(intakeLines(r, s))
        .join("\n"),
  rows: (r) => r.tiers.flatMap((t) => t.retired)
}

const restoreView: View<RestoreResult> = {
  text: (r, s) =>
    r.status === "restored"
      ? [`${s.green("✓")} restored ${r.ref}`, `  ${r.path}`, ...(r.proposalId === undefined ? [] : [s.dim(`  proposal ${shortId(r.proposalId)} (undo: akm proposal revert ${shortId(r.proposalId)})`)])].join("\n")
      : [`${s.yellow("…")} restore of ${r.ref} waits for review`, ...(r.hint === undefined ? [] : [s.dim(`  ${r.hint}`)])].join("\n")
}

const purgeView: View<PurgeResult> = {
  text: (r, s) =>
    [
      `${r.dryRun ? "would purge" : "purged"} ${r.purged.length} blob${r.purged.length === 1 ? "" : "s"}${r.purged.length === 0 ? "" : ":"}`,
      ...r.purged.map((p) => `  ${p.ref} ${s.dim(`sha256/${p.digest.slice(0, 12)}… ${p.bytes} bytes`)}`),
      ...r.refused.map((p) => s.yellow(`  refused ${p.ref}: ${p.reason}`)),
      s.dim(`kept ${r.kept.length} (grace period or held); archive ${r.archive.blobs} blobs, ${r.archive.bytes} of ${r.archive.maxBytes} bytes`),
      ...(r.overMax ? [s.yellow("the archive stays over memory.archiveMaxBytes: held, refused or recent blobs fill it")] : [])
    ].join("\n"),
  rows: (r) => r.purged
}

const holdView: View<HoldResult> = {
  text: (r, s) => `${s.green("✓")} ${r.hold ? "held" : "released"} ${r.ref}${r.hold ? s.dim(" (never purged until released with --release)") : ""}`
}

/**
 * The generator config.yaml names (improve.generator), or a test entry
 * point's: compaction and --to use it. A broken generator section does not
 * stop deterministic cleanup; --to then says why it cannot formalize.
 */
const withGenerator = <A, E, R>(program: Effect.Effect<A, E, R>) =>
  Effect.map(FiberRef.get(cliSeams), (seams) =>
    Effect.provide(
      program,
      seams.improve ?? GeneratorLive.pipe(Layer.catchAll((e) => Layer.succeed(Generator, makeNoGenerator(`improve.generator in config.yaml is invalid (${e.message})`))))
    ))

const bundleOption = Options.text("bundle").pipe(Options.withDescription("only this bundle's memory tier"), Options.optional)

const statusCommand = Command.make("status", { bundle: bundleOption, ...globalOptions }, (o) =>
  runCommand(o, memoryStatus({ bundle: Option.getOrUndefined(o.bundle) }), statusView)
).pipe(Command.withDescription("Each memory tier against its water marks, and the archive's size. Example: akm memory status --format json"))

const consolidateCommand = Command.make(
  "consolidate",
  {
    bundle: bundleOption,
    dryRun: Options.boolean("dry-run").pipe(Options.withDescription("list what would be retired; change nothing")),
    to: Options.text("to").pipe(Options.withDescription("formalize related memories into one knowledge item of this bundle (needs a generator; applied two-phase)"), Options.optional),
    ...globalOptions
  },
  (o) => Effect.flatMap(withGenerator(memoryConsolidate({ bundle: Option.getOrUndefined(o.bundle), dryRun: o.dryRun, to: Option.getOrUndefined(o.to) })), (program) => runCommand(o, program, consolidateView))
).pipe(Command.withDescription("Retire duplicates, expired and superseded memories into the archive, through proposals. With a generator, related memories are compacted too (--to formalizes them into another bundle). Example: akm memory consolidate --dry-run"))

const restoreCommand = Command.make("restore", { ref: Args.text({ name: "ref" }).pipe(Args.withDescription("the archived memory's ref")), ...globalOptions }, (o) =>
  runCommand(o, memoryRestore(o.ref), restoreView)
).pipe(Command.withDescription("Bring an archived memory back through a proposal. Example: akm memory restore notes//memories/vpn"))

const purgeCommand = Command.make(
  "purge",
  { dryRun: Options.boolean("dry-run").pipe(Options.withDescription("list the blobs that would be deleted; delete nothing")), ...globalOptions },
  (o) => runCommand(o, memoryPurge({ dryRun: o.dryRun }), purgeView)
).pipe(Command.withDescription("Delete archived memories past their grace period whose successors are in place. Example: akm memory purge --dry-run"))

const holdCommand = Command.make(
  "hold",
  {
    ref: Args.text({ name: "ref" }).pipe(Args.withDescription("the archived memory's ref")),
    release: Options.boolean("release").pipe(Options.withDescription("lift the hold")),
    ...globalOptions
  },
  (o) => runCommand(o, memoryHold(o.ref, o.release), holdView)
).pipe(Command.withDescription("Keep an archived memory from ever being purged. Example: akm memory hold notes//memories/vpn"))

export const memoryCommand = Command.make("memory").pipe(
  Command.withDescription("The memory lifecycle: water marks, consolidation, the archive. Example: akm memory status"),
  Command.withSubcommands([statusCommand, consolidateCommand, restoreCommand, purgeCommand, holdCommand])
)
