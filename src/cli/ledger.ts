import * as Args from "@effect/cli/Args"
import * as Command from "@effect/cli/Command"
import * as Options from "@effect/cli/Options"
import { Effect, Either, Option } from "effect"
import { parseFieldFlags } from "../domain/ledger/FieldFlags.js"
import { LEDGER_KINDS, OCCURRENCE_SOURCES } from "../domain/ledger/index.js"
import { shortId } from "../domain/Proposal.js"
import { addRecord, recordOccurred, splitRecord, type LedgerWrite } from "../programs/ledger/record.js"
import { listLedger, showLedgerRecord, type LedgerList } from "../programs/ledger/list.js"
import { verifyLedger, type LedgerVerifyResult } from "../programs/ledger/verify.js"
import { ledgerImportCiCommand, ledgerMineGitCommand } from "./ledgerIo.js"
import { globalOptions } from "./options.js"
import { table, type View } from "./render.js"
import { callerContext, runCommand } from "./run.js"

const bundle = Options.text("bundle").pipe(Options.withDescription("the project bundle (default: the one around the current folder, else the only one)"), Options.optional)
const source = Options.choice("source", OCCURRENCE_SOURCES).pipe(Options.withDescription("who saw it: self-report (default), git or ci"), Options.optional)
const date = Options.text("date").pipe(Options.withDescription("when it was seen, YYYY-MM-DD (default: today)"), Options.optional)
const note = Options.text("note").pipe(Options.withDescription("a note on this sighting"), Options.optional)
const id = Args.text({ name: "id" }).pipe(Args.withDescription("the record's id, <kind>/<id>, or a unique prefix"))

const writeView: View<LedgerWrite> = {
  text: (r, s) => {
    const head = r.created
      ? `${s.green("✓")} recorded ${r.kind}/${r.id}`
      : r.changed
        ? `${s.green("✓")} ${r.kind}/${r.id} updated: ${r.occurrences} occurrence${r.occurrences === 1 ? "" : "s"}`
        : `${s.dim("=")} ${r.kind}/${r.id} unchanged (that sighting is already recorded; ${r.occurrences} occurrence${r.occurrences === 1 ? "" : "s"})`
    return [
      head,
      `  ${r.path}`,
      ...(r.fingerprint === undefined ? [] : [s.dim(`  fingerprint ${r.fingerprint}`)]),
      ...r.candidates.map((c) => `  possibly the same as ${c.id}: ${c.title} ${s.dim(`(akm ledger show ${c.id})`)}`),
      ...(r.proposal === undefined ? [] : [s.dim(`  proposal ${shortId(r.proposal)} (undo: akm proposal revert ${shortId(r.proposal)})`)]),
      ...r.warnings.map((w) => s.yellow(`  warning: ${w}`))
    ].join("\n")
  }
}

/** `--field` flags as fields, or the usage error naming the bad one. */
const fieldsOf = (flags: ReadonlyArray<string>) => Either.match(parseFieldFlags(flags), { onLeft: Effect.fail, onRight: Effect.succeed })

const addCommand = Command.make(
  "add",
  {
    kind: Args.text({ name: "kind" }).pipe(Args.withDescription(`the record's kind: ${LEDGER_KINDS.join(", ")}`)),
    title: Options.text("title").pipe(Options.withDescription("a one-line title (a failure's default: <error_class> in <module>)"), Options.optional),
    field: Options.text("field").pipe(Options.withDescription("a field as key=value; repeat it for each field, and repeat a key for a list"), Options.repeated),
    source,
    date,
    note,
    bundle,
    ...globalOptions
  },
  (o) =>
    runCommand(
      o,
      Effect.flatMap(fieldsOf(o.field), (fields) =>
        addRecord({ kind: o.kind, title: Option.getOrUndefined(o.title), fields, source: Option.getOrUndefined(o.source), date: Option.getOrUndefined(o.date), note: Option.getOrUndefined(o.note), bundle: Option.getOrUndefined(o.bundle), cwd: callerContext().cwd })),
      writeView
    )
).pipe(Command.withDescription("Record a failure, question, decision, surprise, requirement or drift; a failure seen before gets one more occurrence. Example: akm ledger add failure --title \"Migration lock timeout\" --field module=src/db --field operation=\"migrate src/db/0042.sql:17\" --field error_class=LockTimeout --field symptom=\"…\" --field trigger=\"npm run migrate\" --field root_cause=\"…\" --field fix=\"…\""))

const occurredCommand = Command.make(
  "occurred",
  { id, note, source, date, bundle, ...globalOptions },
  (o) =>
    runCommand(
      o,
      recordOccurred({ id: o.id, note: Option.getOrUndefined(o.note), source: Option.getOrUndefined(o.source), date: Option.getOrUndefined(o.date), bundle: Option.getOrUndefined(o.bundle), cwd: callerContext().cwd }),
      writeView
    )
).pipe(Command.withDescription("Record one more sighting of a record; the same sighting twice counts once. Example: akm ledger occurred lock-timeout-3f9a0c71e2b5 --note \"again on CI\" --source ci"))

const listView: View<LedgerList> = {
  text: (r, s) => {
    const rows = r.records.length === 0
      ? `no ledger records in ${r.bundle}`
      : table([
        [s.dim("KIND"), s.dim("ID"), s.dim("SEEN"), s.dim("LAST"), s.dim("MODULE"), s.dim("TITLE")],
        ...r.records.map((rec) => [rec.kind, rec.id, String(rec.occurrences), rec.dates[rec.dates.length - 1] ?? "-", rec.module ?? "-", rec.title])
      ])
    const bad = r.unreadable.map((u) => s.yellow(`  unreadable: ${u.path}:${u.line} ${u.message} (akm ledger verify)`))
    return [rows, ...bad].join("\n")
  },
  rows: (r) => r.records
}

const listCommand = Command.make(
  "list",
  {
    kind: Options.text("kind").pipe(Options.withDescription("only records of this kind"), Options.optional),
    recurring: Options.boolean("recurring").pipe(Options.withDescription("only records seen at least twice")),
    bundle,
    ...globalOptions
  },
  (o) => runCommand(o, listLedger({ kind: Option.getOrUndefined(o.kind), recurring: o.recurring, bundle: Option.getOrUndefined(o.bundle), cwd: callerContext().cwd }), listView)
).pipe(Command.withDescription("List the project's ledger records, most sightings first. Example: akm ledger list --kind failure --recurring"))

type Shown = Effect.Effect.Success<ReturnType<typeof showLedgerRecord>>

const showCommand = Command.make(
  "show",
  { id, bundle, ...globalOptions },
  (o) => runCommand(o, showLedgerRecord({ id: o.id, bundle: Option.getOrUndefined(o.bundle), cwd: callerContext().cwd }), { text: (r: Shown, s) => [s.dim(r.path), "", r.text.trimEnd()].join("\n") } satisfies View<Shown>)
).pipe(Command.withDescription("Print one ledger record. Example: akm ledger show failure/lock-timeout-3f9a0c71e2b5"))

export const verifyView: View<LedgerVerifyResult> = {
  text: (r, s) =>
    r.findings.length === 0
      ? `${s.green("✓")} ${r.records} ledger record${r.records === 1 ? "" : "s"} in ${r.bundle}, no problems`
      : [
        ...r.findings.map((f) => `${f.path}:${f.line}  ${f.severity === "error" ? s.red(f.severity) : s.yellow(f.severity)}  ${f.code}  ${f.message}`),
        `${r.ok ? s.yellow("!") : s.red("✗")} ${r.findings.length} problem${r.findings.length === 1 ? "" : "s"} in ${r.records} ledger record${r.records === 1 ? "" : "s"}`
      ].join("\n"),
  rows: (r) => r.findings
}

const verifyCommand = Command.make(
  "verify",
  { bundle, ...globalOptions },
  (o) => runCommand(o, verifyLedger({ bundle: Option.getOrUndefined(o.bundle), cwd: callerContext().cwd }), verifyView, (r) => (r.ok ? 0 : 1))
).pipe(Command.withDescription("Check every ledger record: YAML, required fields, duplicate ids and fingerprints; exits 1 on a problem. Example: akm ledger verify"))

const splitCommand = Command.make(
  "split",
  {
    id,
    discriminator: Options.text("discriminator").pipe(Options.withDescription("text that only the other failure's fields contain (matched case-insensitively)")),
    bundle,
    ...globalOptions
  },
  (o) => runCommand(o, splitRecord({ id: o.id, discriminator: o.discriminator, bundle: Option.getOrUndefined(o.bundle), cwd: callerContext().cwd }), writeView)
).pipe(Command.withDescription("Split a failure on collision: later failures with its fingerprint that contain the discriminator get a record of their own. Example: akm ledger split lock-timeout-3f9a0c71e2b5 --discriminator \"read replica\""))

export const ledgerCommand = Command.make("ledger").pipe(
  Command.withDescription("Capture what a project learns: failures, questions, decisions and surprises under .ai/ledger/. Example: akm ledger list --recurring"),
  Command.withSubcommands([addCommand, occurredCommand, listCommand, showCommand, verifyCommand, splitCommand, ledgerImportCiCommand, ledgerMineGitCommand])
)
