import { Effect } from "effect"
import { Conflict, UsageError } from "../domain/Errors.js"
import { sha256Hex } from "../domain/Proposal.js"
import { headingSlug } from "../domain/Ref.js"
import { redactFields } from "../domain/Redaction.js"
import { BundleFiles, shareWalks } from "../services/BundleFiles.js"
import { Redactor } from "../services/Redactor.js"
import { authorRedacted } from "./proposals/authorRedacted.js"
import { authoringConflict, proposeAndApply, writeTarget } from "./proposals/direct.js"
import { resolveBundle } from "./scan.js"
import { shellCommand } from "../domain/ShellQuote.js"

export interface RememberInput {
  readonly text: string
  readonly bundle?: string | undefined
  readonly title?: string | undefined
  readonly tags?: ReadonlyArray<string> | undefined
}

/** Adapters with a memory type: akm's `memories/`, and OKF concepts of `type: memory`. */
const MEMORY_ADAPTERS = ["akm", "okf"]

const TITLE_CHARS = 60
/** How often remember tries the next free name when a concurrent writer took the one it chose. */
const NAME_ATTEMPTS = 5
const DESCRIPTION_CHARS = 200

/** Cuts text at a word boundary to at most `max` characters. */
const clip = (text: string, max: number): string => {
  if (text.length <= max) return text
  const cut = text.slice(0, max + 1)
  const space = cut.lastIndexOf(" ")
  return `${(space > max / 2 ? cut.slice(0, space) : text.slice(0, max)).trimEnd()}…`
}

/** The first line without markdown heading marks. */
const firstLine = (text: string): string => text.split("\n").map((l) => l.replace(/^#+\s*/, "").trim()).find((l) => l !== "") ?? ""

/** The first sentence of the first line: a memory's default title and description. */
const firstSentence = (text: string): string => {
  const line = firstLine(text)
  const end = /[.!?](\s|$)/.exec(line)
  return end === null ? line : line.slice(0, end.index + 1)
}

/**
 * `akm remember "<text>"`: a memory in the target bundle through its adapter's
 * `create` (akm: memories/<slug>.md; OKF: a `type: memory` concept under
 * memories/), made as a proposal and accepted in the same step when policy
 * allows (spec 05 §3). A name already taken gets -2, -3, …
 */
export const remember = Effect.fn("remember")(function* (input: RememberInput) {
  const files = yield* BundleFiles
  // Redacted before anything is derived from it: title, slug, description and body (spec 08 §2.1).
  const redact = yield* (yield* Redactor).snapshot
  const text = redact(input.text.trim())
  if (text === "") return yield* new UsageError({ message: "nothing to remember", hint: "akm remember \"the staging DB needs an allow-listed runner IP\"" })
  const bundle = yield* writeTarget(input.bundle)
  const { info, adapter } = yield* resolveBundle(bundle)
  if (!MEMORY_ADAPTERS.includes(adapter.id) || adapter.create === undefined) {
    return yield* new Conflict({
      message: `bundle '${bundle}' is read by the ${adapter.id} adapter, which has no memory type`,
      hint: `remember into an akm or okf bundle with --bundle <name>, or write a native item with: ${shellCommand("akm create <type> --bundle", bundle)}`
    })
  }
  const title = redact(input.title?.trim() || clip(firstSentence(text).replace(/[.!?]$/, ""), TITLE_CHARS))
  const tags = (input.tags ?? []).map((t) => t.trim()).filter((t) => t !== "")
  const slug = headingSlug(title) || "memory"
  const create = adapter.create
  // Concurrent remembers can pick the same free name; the engine's create check (beforeHash null) lets one win,
  // and the others take the next free name (their attempt stays in the history as failed).
  for (let attempt = 1; ; attempt++) {
    // One listing serves choosing the name and evaluating the change; the engine and the index refresh walk afresh.
    const { changes, made } = yield* shareWalks(Effect.gen(function* () {
      const walked = yield* files.walk(info.root, { includeHidden: adapter.includeHidden ?? false })
      const ctx = files.context(info, walked.files)
      let conceptId = `memories/${slug}`
      for (let n = 2; ctx.exists(`${conceptId}.md`); n++) conceptId = `memories/${slug}-${n}`
      const changes = yield* authorRedacted(create, {
        type: "memory",
        conceptId,
        title,
        description: redact(clip(firstSentence(text), DESCRIPTION_CHARS)),
        body: redact(text.endsWith("\n") ? text : `${text}\n`),
        ...(tags.length === 0 ? {} : { fields: redactFields({ tags }, redact) })
      }, ctx).pipe(Effect.mapError(authoringConflict))
      const made = yield* Effect.either(proposeAndApply({
        title: `Remember: ${title}`,
        recipe: "remember",
        changeClass: "mechanical",
        changes,
        evidence: [{ kind: "user", id: "remember", hash: sha256Hex(text) }],
        bundle,
        root: info.root
      }))
      return { changes, made }
    }))
    if (made._tag === "Right") return made.right
    const error = made.left
    const taken = error._tag === "StaleBeforeHash" && error.expected === null && changes.some((c) => c.path === error.path && c.beforeHash === null)
    if (!taken || attempt >= NAME_ATTEMPTS) return yield* Effect.fail(error)
  }
})
