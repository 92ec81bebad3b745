import * as Args from "@effect/cli/Args"
import * as Command from "@effect/cli/Command"
import * as Options from "@effect/cli/Options"
import { Effect, Option } from "effect"
import { proposalSubmit } from "../programs/improve.js"
import type { SubmitResult } from "../services/Improve.js"
import { createInterface } from "node:readline/promises"
import { Conflict, UsageError } from "../domain/Errors.js"
import { PROPOSAL_STATUSES, shortId } from "../domain/Proposal.js"
import { proposalAccept, type DecisionResult } from "../programs/proposals/accept.js"
import { proposalDiff } from "../programs/proposals/diff.js"
import { proposalList } from "../programs/proposals/list.js"
import { proposalNew } from "../programs/proposals/new.js"
import { proposalReject } from "../programs/proposals/reject.js"
import { proposalRefresh, type RefreshResult } from "../programs/proposals/refresh.js"
import { proposalRecover, type RecoverResult } from "../programs/proposals/resolve.js"
import { proposalRevert } from "../programs/proposals/revert.js"
import { proposalShow, type ProposalView } from "../programs/proposals/show.js"
import type { ProposalSummary } from "../services/ProposalStore.js"
import { globalOptions } from "./options.js"
import { neutralise, table, type Style, type View } from "./render.js"
import { withImprove } from "./improve.js"
import { callerContext, runCommand } from "./run.js"

const id = Args.text({ name: "id" }).pipe(Args.withDescription("the proposal's id, or its first 8 characters"))

const statusColour = (status: string, s: Style): string =>
  status === "accepted" ? s.green(status) : status === "failed" ? s.red(status) : status === "pending" ? s.yellow(status) : s.dim(status)

const filesText = (files: ProposalSummary["files"]): string =>
  files.length === 1 ? `${files[0]!.bundle}//${files[0]!.path}` : `${files.length} files`

const listView: View<{ readonly proposals: ReadonlyArray<ProposalSummary> }> = {
  text: (r, s) =>
    r.proposals.length === 0
      ? "no proposals"
      : table([
        [s.dim("ID"), s.dim("STATUS"), s.dim("RECIPE"), s.dim("CLASS"), s.dim("CREATED"), s.dim("FILES"), s.dim("TITLE")],
        ...r.proposals.map((p) => [shortId(p.id), statusColour(p.status, s), p.recipe, p.changeClass, p.createdAt.slice(0, 16).replace("T", " "), filesText(p.files), p.title])
      ]),
  rows: (r) => r.proposals
}

const showText = (p: ProposalView, s: Style): string => {
  const facts = table([
    ["id", p.id],
    ["title", s.bold(p.title)],
    ["status", `${statusColour(p.status, s)}${p.decidedBy === undefined ? "" : s.dim(` by ${p.decidedBy} at ${p.decidedAt}`)}`],
    ...(p.reason === undefined ? [] : [["reason", p.reason]]),
    ["recipe", `${p.recipe} (${p.changeClass})`],
    ["created", p.createdAt],
    ["fingerprint", s.dim(p.fingerprint.slice(0, 16))]
  ])
  const evidence = p.evidence.map((e) => `  ${e.kind} ${e.ref ?? e.id}${e.note === undefined ? "" : ` — ${e.note}`}`)
  const evaluation = p.evaluation === undefined
    ? []
    : [
      `${s.dim("evaluation:")} ${p.evaluation.verdict === "pass" ? s.green("pass") : s.red("fail")} ${s.dim(`(${p.evaluation.evaluator})`)}`,
      ...(p.evaluation.metrics === undefined ? [] : [`  ${s.dim(Object.entries(p.evaluation.metrics).map(([k, v]) => `${k}=${Number.isInteger(v) ? v : v.toFixed(3)}`).join(" "))}`]),
      ...p.evaluation.diagnostics.map((d) => `  ${d.severity}  ${d.code}  ${d.path}${d.line === undefined ? "" : `:${d.line}`}  ${d.message}`)
    ]
  const outcomes = p.outcomes.map((o) => `  ${o.at}  ${o.kind}${o.error === undefined ? "" : `: ${o.error.message}`}${o.note === undefined ? "" : s.dim(` (${o.note})`)}`)
  const files = p.files.map((f) => `${s.bold(`${f.action} ${f.bundle}//${f.path}`)}${f.note === undefined ? "" : s.yellow(` — ${f.note}`)}\n${f.diff}`)
  return [
    facts,
    ...(evidence.length === 0 ? [] : [s.dim("evidence:"), ...evidence]),
    ...evaluation,
    ...(outcomes.length === 0 ? [] : [s.dim("history:"), ...outcomes]),
    "",
    ...files
  ].join("\n").replace(/\n+$/, "")
}

const showView: View<ProposalView> = { text: showText }

const decisionView: View<DecisionResult> = {
  text: (r, s) =>
    [
      `${s.green("✓")} ${r.status} ${shortId(r.id)} ${r.title}`,
      ...r.changes.map((c) => `  ${c.afterHash === null ? "deleted" : c.beforeHash === null ? "created" : "updated"} ${c.bundle}//${c.path}`),
      ...r.gitCommits.map((c) => s.dim(`  committed ${c.sha.slice(0, 12)} in ${c.bundle}`)),
      ...r.warnings.map((w) => s.yellow(`  warning: ${w}`))
    ].join("\n")
}

const list = Command.make(
  "list",
  {
    status: Options.choice("status", PROPOSAL_STATUSES).pipe(Options.withDescription("only proposals with this status"), Options.optional),
    recipe: Options.text("recipe").pipe(Options.withDescription("only proposals of this recipe (remember, import, create, lint-fix, manual, …)"), Options.optional),
    bundle: Options.text("bundle").pipe(Options.withDescription("only proposals that change this bundle"), Options.optional),
    ...globalOptions
  },
  (o) =>
    runCommand(o, proposalList({ status: Option.getOrUndefined(o.status), recipe: Option.getOrUndefined(o.recipe), bundle: Option.getOrUndefined(o.bundle) }), listView)
).pipe(Command.withDescription("List proposals, newest first. Example: akm proposal list --status pending"))

const show = Command.make("show", { id, ...globalOptions }, (o) => runCommand(o, proposalShow(o.id), showView)).pipe(
  Command.withDescription("Show a proposal: evidence, evaluation, history and a diff per file. Example: akm proposal show 1a2b3c4d")
)

const diff = Command.make("diff", { id, ...globalOptions }, (o) =>
  runCommand(o, proposalDiff(o.id), { text: (r) => r.diff.replace(/\n$/, "") })
).pipe(Command.withDescription("Print a proposal's unified diff. Example: akm proposal diff 1a2b3c4d | less"))

/** On a terminal, shows the diff and asks before applying; without one (scripts, agents) the command itself is the decision. */
const confirmed = (idOrPrefix: string, yes: boolean) =>
  yes || process.stdin.isTTY !== true || process.stderr.isTTY !== true
    ? Effect.void
    : Effect.gen(function* () {
      const { diff: text } = yield* proposalDiff(idOrPrefix)
      process.stderr.write(neutralise(text))
      const answer = yield* Effect.promise(async () => {
        const prompt = createInterface({ input: process.stdin, output: process.stderr })
        try {
          return await prompt.question("Apply this proposal? [y/N] ")
        } finally {
          prompt.close()
        }
      })
      if (!/^y(es)?$/i.test(answer.trim())) return yield* new Conflict({ message: "not accepted: declined at the prompt", hint: "nothing was written; pass -y to accept without asking" })
    })

const accept = Command.make(
  "accept",
  { id, yes: Options.boolean("yes").pipe(Options.withAlias("y"), Options.withDescription("do not ask on a terminal")), ...globalOptions },
  (o) => runCommand(o, Effect.zipRight(confirmed(o.id, o.yes), proposalAccept(o.id)), decisionView)
).pipe(Command.withDescription("Apply a pending proposal through the transaction engine. Example: akm proposal accept 1a2b3c4d -y"))

const reject = Command.make(
  "reject",
  { id, reason: Options.text("reason").pipe(Options.withDescription("why (kept with the proposal)")), ...globalOptions },
  (o) => runCommand(o, proposalReject(o.id, o.reason), { text: (r, s) => `${s.dim("✗")} rejected ${shortId(r.id)} ${r.title}: ${r.reason}` })
).pipe(Command.withDescription("Close a pending proposal without applying it. Example: akm proposal reject 1a2b3c4d --reason \"duplicate\""))

const revert = Command.make("revert", { id, ...globalOptions }, (o) => runCommand(o, proposalRevert(o.id), decisionView)).pipe(
  Command.withDescription("Undo an accepted proposal: restore the replaced bytes, remove created files. Example: akm proposal revert 1a2b3c4d")
)

const recoverView: View<RecoverResult> = {
  text: (r, s) =>
    [
      `${s.green("✓")} ${r.direction === "rollback" ? "rolled back" : "rolled forward"} transaction ${r.transaction}${r.proposal === null ? "" : ` (proposal ${shortId(r.proposal.id)}, now ${r.proposal.status})`}`,
      ...r.restored.map((f) => `  restored ${f}`)
    ].join("\n")
}

const recover = Command.make(
  "recover",
  {
    id: Args.text({ name: "id" }).pipe(Args.withDescription("the transaction id `akm health` names, or the proposal's id")),
    rollback: Options.boolean("rollback").pipe(Options.withDescription("put every file back to its bytes before the transaction, from the backups")),
    forward: Options.boolean("forward").pipe(Options.withDescription("finish the transaction: every file at its new bytes")),
    ...globalOptions
  },
  (o) =>
    runCommand(
      o,
      o.rollback === o.forward
        ? Effect.fail(new UsageError({ message: "say which way to resolve it: --rollback or --forward", hint: "--rollback restores the files from the backups; --forward finishes the change" }))
        : proposalRecover(o.id, o.rollback ? "rollback" : "forward"),
      recoverView
    )
).pipe(Command.withDescription("Resolve an interrupted transaction recovery would not touch (a damaged journal). Example: akm proposal recover 1a2b3c4d --rollback"))

const create = Command.make(
  "new",
  {
    bundle: Options.text("bundle").pipe(Options.withDescription("the bundle the files belong to")),
    file: Options.text("file").pipe(Options.withPseudoName("path=@file"), Options.withDescription("path=@local-file: write the local file's bytes to this bundle path (repeatable)"), Options.repeated),
    title: Options.text("title").pipe(Options.withDescription("what the proposal does")),
    ...globalOptions
  },
  (o) => runCommand(o, proposalNew({ bundle: o.bundle, files: o.file, title: o.title, ...callerContext() }), showView)
).pipe(Command.withDescription("Make a proposal by hand from local files, for review. Example: akm proposal new --bundle notes --file guides/setup.md=@./draft.md --title \"Setup guide\""))

const submitView: View<SubmitResult> = {
  text: (r, s) =>
    r.proposalId !== undefined
      ? `${s.green("✓")} ${r.outcome} ${shortId(r.proposalId)} from packet ${r.packetId}; review with: akm proposal show ${shortId(r.proposalId)}`
      : [`${s.red("✗")} packet ${r.packetId}: ${r.outcome}, no proposal`, ...r.failures.map((f) => `  ${f}`)].join("\n")
}

const submit = Command.make(
  "submit",
  {
    packet: Args.text({ name: "packet-id" }).pipe(Args.withDescription("the work packet `akm improve` wrote (agent generator)")),
    dir: Options.directory("dir").pipe(Options.withDescription("read the candidate files from here instead of the packet's out/"), Options.optional),
    ...globalOptions
  },
  (o) =>
    Effect.flatMap(withImprove(proposalSubmit(o.packet, Option.getOrUndefined(o.dir))), (program) =>
      runCommand(o, program, submitView, (r) => (r.proposalId === undefined ? 1 : 0)))
).pipe(Command.withDescription("Verify an agent's candidate files from a work packet and make them a proposal. Example: akm proposal submit 1a2b3c4d"))

const refreshView: View<RefreshResult> = {
  text: (r, s) =>
    [
      r.outcome === "refreshed"
        ? `${s.green("✓")} refreshed ${shortId(r.from.id)} into ${shortId(r.proposal!.id)} (pending review) ${r.proposal!.title}`
        : r.outcome === "conflict"
          ? `${s.yellow("!")} refreshed ${shortId(r.from.id)} into ${shortId(r.proposal!.id)} with merge conflicts (pending; cannot be accepted until resolved) ${r.proposal!.title}`
          : r.outcome === "current"
            ? `${s.green("✓")} ${shortId(r.from.id)} is current: nothing to refresh`
            : r.outcome === "regenerated"
              ? `${s.green("✓")} regenerated ${shortId(r.from.id)} by its recipe into ${shortId(r.proposal!.id)} (${r.proposal!.status === "accepted" ? "applied by policy" : "pending review"}) ${r.proposal!.title}; ${shortId(r.from.id)} is superseded${r.run === undefined ? "" : s.dim(` (improve run ${r.run.id.slice(0, 8)}, ${r.run.modelCalls} model call${r.run.modelCalls === 1 ? "" : "s"})`)}`
              : `${s.green("✓")} ${shortId(r.from.id)}: the files already hold its change; closed as superseded`,
      ...r.files.map((f) => `  ${f.result === "conflict" ? s.red(f.result) : f.result}  ${f.bundle}//${f.path}${f.conflicts === undefined ? "" : s.dim(` (${f.conflicts} conflict${f.conflicts === 1 ? "" : "s"})`)}`),
      ...(r.hint === undefined ? [] : [s.dim(`  ${r.hint}`)])
    ].join("\n"),
  rows: (r) => r.files
}

const refresh = Command.make(
  "refresh",
  {
    id,
    file: Options.text("file").pipe(Options.withPseudoName("path=@file"), Options.withDescription("path=@local-file: the resolved bytes for one of the proposal's paths (after a merge conflict; repeatable)"), Options.repeated),
    ...globalOptions
  },
  (o) =>
    Effect.flatMap(withImprove(proposalRefresh(o.id, { files: o.file, ...callerContext() })), (program) =>
      runCommand(o, program, refreshView, (r) => (r.outcome === "conflict" ? 1 : 0)))
).pipe(Command.withDescription("Carry a stale proposal onto the current files as a new proposal for review, by a three-way merge or, for an improve proposal, by its recipe. Example: akm proposal refresh 1a2b3c4d"))

export const proposalCommand = Command.make("proposal").pipe(
  Command.withDescription("Review, accept, reject and revert proposed changes: every write akm makes is a proposal. Example: akm proposal list --status pending"),
  Command.withSubcommands([list, show, diff, accept, reject, revert, recover, create, submit, refresh])
)
