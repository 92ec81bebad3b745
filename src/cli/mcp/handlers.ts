import { Effect } from "effect"
import { redact, type Redacted } from "../../domain/Redaction.js"
import { reportCause } from "../exitCodes.js"
import { versioned } from "../render.js"
import type { AkmServices } from "../run.js"
import { curate } from "../../programs/curate.js"
import { feedback } from "../../programs/feedback.js"
import { addRecord } from "../../programs/ledger/record.js"
import { lint } from "../../programs/lint.js"
import { proposalAccept } from "../../programs/proposals/accept.js"
import { proposalList } from "../../programs/proposals/list.js"
import { proposalReject } from "../../programs/proposals/reject.js"
import { proposalShow } from "../../programs/proposals/show.js"
import { remember } from "../../programs/remember.js"
import { search } from "../../programs/search.js"
import { show } from "../../programs/show.js"
import { Redactor } from "../../services/Redactor.js"
import { McpFreshness } from "./freshness.js"
import { rememberJson } from "./resultJson.js"
import { AkmToolkit, ToolFailure } from "./tools.js"

/** Tool calls are an agent's: only user events teach utility (R-SRCH-2). */
const SOURCE = "agent" as const

/** The workspace's redactor, or the patterns alone when the workspace cannot give one (a damaged state.db). */
export const redactorOrPatterns: Effect.Effect<(text: string) => Redacted, never, Redactor> = Effect.flatMap(Redactor, (r) => r.snapshot).pipe(
  Effect.catchAllCause(() => Effect.succeed((text: string) => redact(text)))
)

/** A failure as the CLI would report it (code, message, hint), redacted; never a stack trace. */
export const toolFailure = (cause: Parameters<typeof reportCause>[0]) =>
  Effect.map(redactorOrPatterns, (redactText) => {
    const report = reportCause(cause)
    return new ToolFailure({ code: report.code, message: redactText(report.message), hint: redactText(report.hint) })
  })

/**
 * Runs a program on the server's services and returns what `--format json`
 * prints: plain JSON (no class instances, no undefined), redacted, or the
 * CLI's error.
 */
const run = <A, E>(program: Effect.Effect<A, E, AkmServices>) =>
  program.pipe(
    // Everything served passes the redactor, known values included: an agent's transcript is output too.
    Effect.flatMap((value) =>
      Effect.flatMap(Redactor, (redactor) => {
        const json = JSON.stringify(versioned(value))
        return Effect.map(redactor.redact(json), (redacted): unknown => {
          const parsed: unknown = JSON.parse(redacted)
          // Nothing redacted: the text is already what the result's text block would print again (register.ts).
          if (redacted === json) rememberJson(parsed, json)
          return parsed
        })
      })),
    Effect.catchAllCause((cause) => Effect.flatMap(toolFailure(cause), Effect.fail))
  )

/** The tools' handlers: each runs the CLI's program with the same inputs. */
export const AkmToolHandlers = AkmToolkit.toLayer(
  Effect.gen(function* () {
    const services = yield* Effect.context<AkmServices>()
    const ensureFresh = yield* McpFreshness
    const on = <A, E>(program: Effect.Effect<A, E, AkmServices>) => Effect.provide(run(program), services)
    /** Reads answer from an index brought up to date with the bundles on disk (freshness.ts). */
    const read = <A, E>(program: Effect.Effect<A, E, AkmServices>) => on(Effect.zipRight(ensureFresh, program))
    return AkmToolkit.of({
      search: (p) => read(search({ query: p.query, limit: p.limit, bundles: p.bundles, types: p.types, adapters: p.adapters, belief: p.belief, includeProposed: p.includeProposed, source: SOURCE })),
      show: (p) => read(show({ ref: p.ref, level: p.level, maxTokens: p.maxTokens, lines: p.lines, source: SOURCE })),
      curate: (p) => read(curate({ task: p.task, budget: p.budget, bundles: p.bundles, limit: p.limit, source: SOURCE })),
      remember: (p) => on(remember({ text: p.text, bundle: p.bundle, title: p.title, tags: p.tags })),
      feedback: (p) => on(feedback({ ref: p.ref, polarity: p.polarity, reason: p.reason, tags: p.tags, source: SOURCE })),
      lint: (p) => on(lint({ bundle: p.bundle, strict: p.strict ?? false, fix: false, failOn: p.failOn ?? "error" })),
      proposal_list: (p) => on(proposalList({ status: p.status, recipe: p.recipe, bundle: p.bundle })),
      proposal_show: (p) => on(proposalShow(p.id)),
      proposal_accept: (p) => on(proposalAccept(p.id)),
      proposal_reject: (p) => on(proposalReject(p.id, p.reason)),
      ledger_add: (p) =>
        on(addRecord({ kind: p.kind, title: p.title, fields: p.fields ?? {}, source: p.source, date: p.date, note: p.note, bundle: p.bundle, cwd: process.cwd() }))
    })
  })
)
