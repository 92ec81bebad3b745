import * as Args from "@effect/cli/Args"
import * as Command from "@effect/cli/Command"
import * as Options from "@effect/cli/Options"
import { Effect, Option } from "effect"
import * as path from "node:path"
import { UsageError } from "../domain/Errors.js"
import { EVIDENCE_KINDS, EVIDENCE_STATUSES, isEvidenceKind, type Evidence, type EvidenceKind } from "../domain/Evidence.js"
import { defaultTranscriptDir, TRANSCRIPT_TOOLS } from "../domain/transcripts/Transcript.js"
import { addEvidence } from "../programs/evidence/add.js"
import { collectEvidenceReport, type CollectReport } from "../programs/evidence/collect.js"
import { dismissEvidence } from "../programs/evidence/dismiss.js"
import { importTranscripts, type ImportTranscriptsResult } from "../programs/evidence/importTranscripts.js"
import { listEvidence, type EvidenceList, type EvidenceListRow } from "../programs/evidence/list.js"
import { checkLimitRange } from "./limit.js"
import { globalOptions } from "./options.js"
import { table, type Style, type View } from "./render.js"
import { callerContext, runCommand } from "./run.js"

/** Ids print as their first 8 hex digits; any unique prefix of 4 or more names a row. */
const short = (id: string) => id.slice(0, 8)

const clip = (text: string, max: number) => {
  const flat = text.replace(/\s+/g, " ").trim()
  return flat.length <= max ? flat : `${flat.slice(0, max - 1)}…`
}

const refCell = (row: EvidenceListRow, s: Style) => (row.ref === undefined ? s.dim("-") : row.missing === undefined ? row.ref : `${row.ref} ${s.yellow(`(missing: ${row.missing})`)}`)

const rowsTable = (rows: ReadonlyArray<EvidenceListRow>, s: Style) =>
  table([
    [s.dim("ID"), s.dim("KIND"), s.dim("STATUS"), s.dim("REF"), s.dim("NOTE")],
    ...rows.map((row) => [short(row.id), row.kind, row.status, refCell(row, s), clip(row.note, 80)])
  ])

const mdEscape = (text: string) => text.replace(/\|/g, "\\|").replace(/\s+/g, " ")

const listView: View<EvidenceList> = {
  text: (r, s) =>
    r.rows.length === 0
      ? "no evidence (akm evidence collect gathers it from feedback, lint, the ledger and searches)"
      : [rowsTable(r.rows, s), s.dim(`${r.rows.length} row${r.rows.length === 1 ? "" : "s"}, ${r.independent} independent`)].join("\n"),
  md: (r) =>
    [
      "| id | kind | status | ref | note |",
      "|---|---|---|---|---|",
      ...r.rows.map((row) => `| ${short(row.id)} | ${row.kind} | ${row.status} | ${row.ref === undefined ? "" : mdEscape(row.ref)}${row.missing === undefined ? "" : ` (missing: ${row.missing})`} | ${mdEscape(clip(row.note, 200))} |`)
    ].join("\n"),
  rows: (r) => r.rows
}

const oneView = (verb: string): View<Evidence> => ({
  text: (e, s) => [`${s.green("✓")} ${verb} ${short(e.id)} ${e.kind}${e.ref === undefined ? "" : ` ${e.ref}`}`, s.dim(`  ${clip(e.note, 120)}`)].join("\n"),
  rows: (e) => [e]
})

const collectView: View<CollectReport> = {
  text: (r, s) =>
    [
      `${s.green("✓")} ${r.rows.length} open evidence row${r.rows.length === 1 ? "" : "s"} (${r.added} new, ${r.resolved} resolved lint finding${r.resolved === 1 ? "" : "s"} dismissed)`,
      ...r.problems.map((p) => s.yellow(`  skipped ${p}`))
    ].join("\n"),
  rows: (r) => r.rows
}

const importView: View<ImportTranscriptsResult> = {
  text: (r, s) =>
    [
      `${s.green("✓")} ${r.tool}: ${r.files} file${r.files === 1 ? "" : "s"}, ${r.sessions} session${r.sessions === 1 ? "" : "s"} → ${r.found} observation${r.found === 1 ? "" : "s"}, ${r.added} new`,
      ...r.problems.map((p) => s.yellow(`  ${p.file}${p.line === undefined ? "" : `:${p.line}`}: ${p.message}`))
    ].join("\n"),
  rows: (r) => r.rows
}

// A text option: the choice's list of twelve kinds would not fit a help line; the kind is checked when parsed.
const kind = Options.text("kind")

const checkKind = (value: string | undefined): Effect.Effect<EvidenceKind | undefined, UsageError> =>
  value === undefined || isEvidenceKind(value)
    ? Effect.succeed(value)
    : Effect.fail(new UsageError({ message: `unknown evidence kind '${value}'`, hint: `use one of: ${EVIDENCE_KINDS.join(", ")}` }))

const addCommand = Command.make(
  "add",
  {
    kind: kind.pipe(Options.withDescription("what was observed, e.g. negative-feedback, contradiction, question (see docs/evidence.md)")),
    ref: Options.text("ref").pipe(Options.withDescription("the item it is about (omit for a question or a missing item)"), Options.optional),
    note: Options.text("note").pipe(Options.withDescription("what was observed, in a sentence")),
    query: Options.text("query").pipe(Options.withDescription("the search or question that should find the fixed item"), Options.optional),
    key: Options.text("key").pipe(Options.withDescription("independence key: observations sharing it count once (default: each row counts)"), Options.optional),
    ...globalOptions
  },
  (o) =>
    runCommand(
      o,
      addEvidence({ kind: o.kind, ref: Option.getOrUndefined(o.ref), note: o.note, query: Option.getOrUndefined(o.query), independenceKey: Option.getOrUndefined(o.key) }),
      oneView("recorded")
    )
).pipe(Command.withDescription("Record evidence by hand; adding the same row again changes nothing. Example: akm evidence add --kind negative-feedback --ref notes//deploy --note \"step 3 uses the old flag\""))

const listCommand = Command.make(
  "list",
  {
    ref: Options.text("ref").pipe(Options.withDescription("only evidence about this ref"), Options.optional),
    kind: kind.pipe(Options.withDescription("only evidence of this kind"), Options.optional),
    status: Options.choice("status", EVIDENCE_STATUSES).pipe(Options.withDescription("open, used or dismissed"), Options.optional),
    bundle: Options.text("bundle").pipe(Options.withDescription("only evidence about this bundle's items"), Options.optional),
    limit: Options.integer("limit").pipe(Options.withDescription("at most N rows (default 100)"), Options.optional),
    ...globalOptions
  },
  (o) =>
    runCommand(
      o,
      Effect.zipRight(
        checkLimitRange(Option.getOrUndefined(o.limit)),
        Effect.flatMap(checkKind(Option.getOrUndefined(o.kind)), (k) =>
          listEvidence({ ref: Option.getOrUndefined(o.ref), kind: k, status: Option.getOrUndefined(o.status), bundle: Option.getOrUndefined(o.bundle), limit: Option.getOrUndefined(o.limit) }))
      ),
      listView
    )
).pipe(Command.withDescription("List stored evidence, newest first; a ref that no longer exists is flagged. Example: akm evidence list --kind negative-feedback --status open"))

const dismissCommand = Command.make(
  "dismiss",
  { id: Args.text({ name: "id" }).pipe(Args.withDescription("the row's id or a unique prefix (4+ characters)")), ...globalOptions },
  (o) => runCommand(o, dismissEvidence(o.id), oneView("dismissed"))
).pipe(Command.withDescription("Dismiss a row: it is kept, but no improve run uses it. Example: akm evidence dismiss 3f9a0c71"))

const collectCommand = Command.make(
  "collect",
  {
    bundle: Options.text("bundle").pipe(Options.withDescription("only this bundle"), Options.optional),
    dryRun: Options.boolean("dry-run").pipe(Options.withDescription("show what would be stored; store nothing")),
    ...globalOptions
  },
  (o) => runCommand(o, collectEvidenceReport({ bundle: Option.getOrUndefined(o.bundle), dryRun: o.dryRun }), collectView)
).pipe(Command.withDescription("Gather evidence from negative feedback, lint findings, broken links, ledger recurrences and failed searches. Example: akm evidence collect --bundle notes"))

const importCommand = Command.make(
  "import",
  {
    tool: Args.choice(TRANSCRIPT_TOOLS.map((t) => [t, t] as const), { name: "tool" }).pipe(Args.withDescription("whose transcripts: claude-code, codex or opencode")),
    since: Options.text("since").pipe(Options.withDescription("only sessions from then on: 24h, 7d, 2w or a date"), Options.optional),
    dir: Options.text("dir").pipe(Options.withDescription("the transcript folder (default: the tool's own under your home directory)"), Options.optional),
    ...globalOptions
  },
  (o) => {
    const caller = callerContext()
    const dir = Option.match(o.dir, { onNone: () => defaultTranscriptDir(o.tool, process.env, caller.home), onSome: (d) => path.resolve(caller.cwd, d) })
    return runCommand(o, importTranscripts({ tool: o.tool, dir, since: Option.getOrUndefined(o.since) }), importView)
  }
).pipe(Command.withDescription("Import corrections, questions and failures from local agent transcripts, redacted. Example: akm evidence import claude-code --since 24h"))

export const evidenceCommand = Command.make("evidence").pipe(
  Command.withDescription("What justifies improving knowledge: negative feedback, lint errors, broken links, recurring failures, failed searches and agent sessions. Example: akm evidence list --status open"),
  Command.withSubcommands([listCommand, addCommand, dismissCommand, collectCommand, importCommand])
)
