import * as Tool from "@effect/ai/Tool"
import * as Toolkit from "@effect/ai/Toolkit"
import { Schema } from "effect"
import { PROPOSAL_STATUSES } from "../../domain/Proposal.js"

/**
 * What a tool call that failed carries: the CLI's error report (exitCodes.ts
 * reportError), redacted, so an agent reads the same message and hint as on
 * the command line.
 */
export class ToolFailure extends Schema.TaggedError<ToolFailure>()("ToolFailure", {
  code: Schema.String,
  message: Schema.String,
  hint: Schema.String
}) {}

/** A program's result as the CLI prints it with `--format json`: plain JSON. */
const Result = Schema.Unknown

const text = (description: string) => Schema.String.annotations({ description })
const optionalText = (description: string) => Schema.optional(text(description))
const optionalTexts = (description: string) => Schema.optional(Schema.Array(Schema.String).annotations({ description }))
const optionalCount = (description: string, max: number) =>
  Schema.optional(Schema.Int.pipe(Schema.between(1, max)).annotations({ description }))

/** Marks a tool per MCP's tool annotations (all tools here work on the local workspace: closed world). */
const annotated = <T extends Tool.Tool<string, { readonly parameters: Tool.AnyStructSchema; readonly success: Schema.Schema.Any; readonly failure: Schema.Schema.All; readonly failureMode: Tool.FailureMode }>>(tool: T, hints: { readonly readOnly: boolean; readonly destructive: boolean; readonly idempotent: boolean; readonly title: string }): T =>
  tool
    .annotate(Tool.Title, hints.title)
    .annotate(Tool.Readonly, hints.readOnly)
    .annotate(Tool.Destructive, hints.destructive)
    .annotate(Tool.Idempotent, hints.idempotent)
    .annotate(Tool.OpenWorld, false) as T

const READ = { readOnly: true, destructive: false, idempotent: true } as const

export const SearchTool = annotated(
  Tool.make("search", {
    description: "Search every bundle in the local index: best matches first, no network. `prefix/` or `bundle//` lists items.",
    parameters: {
      query: text("words to look for (quote a \"phrase\"); empty lists everything"),
      limit: optionalCount("at most N hits (default: config search.limit, else 20)", 200),
      bundles: optionalTexts("only these bundles"),
      types: optionalTexts("only items of these types, e.g. skill"),
      adapters: optionalTexts("only items read by these adapters"),
      belief: Schema.optional(Schema.Literal("current", "historical", "all").annotations({ description: "current (default) hides knowledge replaced by a successor" })),
      includeProposed: Schema.optional(Schema.Boolean.annotations({ description: "include items marked quality: proposed" }))
    },
    success: Result,
    failure: ToolFailure
  }),
  { ...READ, title: "Search knowledge" }
)

export const ShowTool = annotated(
  Tool.make("show", {
    description: "Show one item from the index by ref (bundle//id#fragment or a short ref): its card, its outline or its text.",
    parameters: {
      ref: text("the item's ref, e.g. notes//guides/setup#install"),
      level: Schema.optional(Schema.Literal("card", "outline", "full").annotations({ description: "how much to show (default full)" })),
      maxTokens: optionalCount("cut the text at about N tokens", 1_000_000),
      lines: optionalText("A:B, A: or :B — 1-based inclusive lines of the file")
    },
    success: Result,
    failure: ToolFailure
  }),
  { ...READ, title: "Show an item" }
)

export const CurateTool = annotated(
  Tool.make("curate", {
    description: "Pick the items an agent needs for a task within a token budget: full text for the best few, cards for the rest.",
    parameters: {
      task: text("what you are about to do, in your own words"),
      budget: optionalCount("tokens the items may use together (default 4000)", 1_000_000),
      bundles: optionalTexts("only these bundles"),
      limit: optionalCount("items at most (default 10)", 200)
    },
    success: Result,
    failure: ToolFailure
  }),
  { ...READ, title: "Curate for a task" }
)

export const RememberTool = annotated(
  Tool.make("remember", {
    description: "Write a memory into a bundle as a proposal, accepted in the same step when the workspace's policy allows (else it stays pending for review).",
    parameters: {
      text: text("what to remember; its first sentence becomes the title"),
      bundle: optionalText("the bundle to write to (default: defaultBundle)"),
      title: optionalText("the memory's title (default: the first sentence)"),
      tags: optionalTexts("tags")
    },
    success: Result,
    failure: ToolFailure
  }),
  { readOnly: false, destructive: false, idempotent: false, title: "Remember" }
)

export const FeedbackTool = annotated(
  Tool.make("feedback", {
    description: "Record whether an item helped; it teaches search which items to rank higher. Negative feedback needs a reason.",
    parameters: {
      ref: text("the item's ref"),
      polarity: Schema.Literal("positive", "negative").annotations({ description: "did the item help?" }),
      reason: optionalText("why (required for negative feedback)"),
      tags: optionalTexts("key=value tags")
    },
    success: Result,
    failure: ToolFailure
  }),
  { readOnly: false, destructive: false, idempotent: false, title: "Give feedback" }
)

export const LintTool = annotated(
  Tool.make("lint", {
    description: "Check bundles with their adapters' native rules (reports only; fixes are left to `akm lint --fix`).",
    parameters: {
      bundle: optionalText("one bundle (default: every configured bundle)"),
      strict: Schema.optional(Schema.Boolean.annotations({ description: "conformance findings take their strict severity" })),
      failOn: Schema.optional(Schema.Literal("error", "warning").annotations({ description: "what makes ok false (default error)" }))
    },
    success: Result,
    failure: ToolFailure
  }),
  { ...READ, title: "Lint bundles" }
)

export const ProposalListTool = annotated(
  Tool.make("proposal_list", {
    description: "List proposals, newest first (pending ones await review).",
    parameters: {
      status: Schema.optional(Schema.Literal(...PROPOSAL_STATUSES).annotations({ description: "only proposals in this status" })),
      recipe: optionalText("only proposals made by this recipe"),
      bundle: optionalText("only proposals for this bundle")
    },
    success: Result,
    failure: ToolFailure
  }),
  { ...READ, title: "List proposals" }
)

export const ProposalShowTool = annotated(
  Tool.make("proposal_show", {
    description: "Show one proposal with its changes.",
    parameters: { id: text("the proposal id or a unique prefix") },
    success: Result,
    failure: ToolFailure
  }),
  { ...READ, title: "Show a proposal" }
)

export const ProposalAcceptTool = annotated(
  Tool.make("proposal_accept", {
    description: "Apply a pending proposal to its bundle's files through the transaction engine (revert with `akm proposal revert`).",
    parameters: { id: text("the proposal id or a unique prefix") },
    success: Result,
    failure: ToolFailure
  }),
  { readOnly: false, destructive: true, idempotent: false, title: "Accept a proposal" }
)

export const ProposalRejectTool = annotated(
  Tool.make("proposal_reject", {
    description: "Reject a pending proposal; nothing is written to the bundle.",
    parameters: { id: text("the proposal id or a unique prefix"), reason: text("why (kept with the proposal)") },
    success: Result,
    failure: ToolFailure
  }),
  { readOnly: false, destructive: false, idempotent: false, title: "Reject a proposal" }
)

export const LedgerAddTool = annotated(
  Tool.make("ledger_add", {
    description: "Record a failure, question, decision, surprise, requirement or drift in the project's ledger; a failure seen before gets one more occurrence.",
    parameters: {
      kind: text("failure, question, decision, surprise, requirement or drift"),
      title: optionalText("the record's title"),
      fields: Schema.optional(Schema.Record({ key: Schema.String, value: Schema.Union(Schema.String, Schema.Array(Schema.String)) }).annotations({ description: "the kind's fields, e.g. module, symptom, fix" })),
      source: Schema.optional(Schema.Literal("self-report", "git", "ci").annotations({ description: "where the occurrence was seen" })),
      date: optionalText("YYYY-MM-DD (default today)"),
      note: optionalText("a note on this occurrence"),
      bundle: optionalText("the project bundle (default: the one for the server's working directory)")
    },
    success: Result,
    failure: ToolFailure
  }),
  { readOnly: false, destructive: false, idempotent: false, title: "Add to the ledger" }
)

/** Every tool `akm mcp` serves (docs/mcp.md). */
export const AkmToolkit = Toolkit.make(
  SearchTool,
  ShowTool,
  CurateTool,
  RememberTool,
  FeedbackTool,
  LintTool,
  ProposalListTool,
  ProposalShowTool,
  ProposalAcceptTool,
  ProposalRejectTool,
  LedgerAddTool
)
