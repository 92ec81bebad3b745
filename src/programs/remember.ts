import { Clock, Effect } from "effect"
import { Conflict, UsageError } from "../domain/Errors.js"
import { parseExpires } from "../domain/memory/MemoryRecord.js"
import { EvidenceStore } from "../services/EvidenceStore.js"
import { memoryPolicy, memoryPressure } from "../domain/MemoryPolicy.js"
import { IndexStore } from "../services/IndexStore.js"
import { WorkspaceConfig } from "../services/WorkspaceConfig.js"
import { INTAKE_ORIGIN, stateOfTier } from "./memory/status.js"
import { readTier } from "./memory/tiers.js"
import { drainIntake, queuedCaptureData } from "./memory/drain.js"
import { sha256Hex } from "../domain/Proposal.js"
import { headingSlug } from "../domain/Ref.js"
import { redactFields } from "../domain/Redaction.js"
import { BundleFiles, carryListings } from "../services/BundleFiles.js"
import { Transaction } from "../services/Transaction.js"
import { Redactor } from "../services/Redactor.js"
import { authorRedacted } from "./proposals/authorRedacted.js"
import { refreshIndex } from "./proposals/accept.js"
import { authoringConflict, proposeAndApply, writeTarget, type DirectResult } from "./proposals/direct.js"
import { resolveBundle } from "./scan.js"
import { shellCommand } from "../domain/ShellQuote.js"

export interface RememberInput {
  readonly text: string
  readonly bundle?: string | undefined
  readonly title?: string | undefined
  readonly tags?: ReadonlyArray<string> | undefined
  /** A duration (30d, 12h, 2w) or an ISO date; a past date is already expired. */
  readonly expires?: string | undefined
  /** Refs of memories this one replaces. */
  readonly supersedes?: ReadonlyArray<string> | undefined
}

/** What remember did: the write, with a warning when the tier is over its high water mark. */
export type RememberResult = DirectResult & { readonly warning?: string | undefined }

/** What automatic capture did: wrote (as remember) or queued the text in state.db. */
export type CaptureResult = RememberResult | { readonly queued: true; readonly bundle: string; readonly evidenceId: string; readonly warning: string }

const pressureWarning = (bundle: string, items: number, high: number): string =>
  `memory tier '${bundle}' holds ${items} items, over high water (${high}); run \`akm memory consolidate\` (\`akm memory status\` says whether cleanup can reach low water)`

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
 * memories/; project: memory/<slug>.md), made as a proposal and accepted in the same step when policy
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
  if (adapter.memory === undefined || adapter.create === undefined) {
    return yield* new Conflict({
      message: `bundle '${bundle}' is read by the ${adapter.id} adapter, which has no memory type`,
      hint: `remember into an akm, okf or project bundle with --bundle <name>, or write a native item with: ${shellCommand("akm create <type> --bundle", bundle)}`
    })
  }
  const memoryDir = adapter.memory.dir
  const nowMs = yield* Clock.currentTimeMillis
  let expires: string | undefined
  if (input.expires !== undefined) {
    const parsed = parseExpires(input.expires, nowMs)
    if ("reason" in parsed) return yield* new UsageError({ message: `--expires ${parsed.reason}`, hint: "e.g. --expires 30d, --expires 12h, --expires 2026-06-30" })
    expires = parsed.at
  }
  const supersedes: Array<string> = []
  for (const given of input.supersedes ?? []) {
    const bare = given.trim().replace(/\.md$/, "")
    supersedes.push(bare.includes("//") ? bare : `${bundle}//${bare.startsWith(`${memoryDir}/`) ? bare : `${memoryDir}/${bare.replace(/^memor(?:y|ies)\//, "")}`}`)
  }
  // An explicit remember always writes; over high water it says so (R-MEM-2). The index's count, so the
  // write reads no other memory.
  const policy = memoryPolicy((yield* (yield* WorkspaceConfig).read).memory)
  const size = (yield* (yield* IndexStore).typeSizes("memory")).find((t) => t.bundle === bundle)
  const warning = size !== undefined && memoryPressure(policy, { items: size.items + 1, bytes: size.bytes + Buffer.byteLength(text) }) === "high"
    ? pressureWarning(bundle, size.items + 1, policy.highWaterItems)
    : undefined
  const title = redact(input.title?.trim() || clip(firstSentence(text).replace(/[.!?]$/, ""), TITLE_CHARS))
  const tags = (input.tags ?? []).map((t) => t.trim()).filter((t) => t !== "")
  const slug = headingSlug(title) || "memory"
  const create = adapter.create
  const extra: Record<string, unknown> = {
    ...(tags.length === 0 ? {} : { tags }),
    ...(expires === undefined ? {} : { expires }),
    ...(supersedes.length === 0 ? {} : { supersedes })
  }
  const fields = Object.keys(extra).length === 0 ? undefined : extra
  // Concurrent remembers wait for each other's lease, so each sees the names taken before it. Another tool can
  // still create the chosen file meanwhile: the engine's create check (beforeHash null) refuses the write, and
  // remember takes the next free name (the attempt stays in the history as failed).
  const transaction = yield* Transaction
  for (let attempt = 1; ; attempt++) {
    // The lease is held from the name choice to the commit (decision 0049): one listing, walked under it, serves
    // choosing the name, evaluating the change and the engine's check; the index refresh follows once it is let go.
    const { changes, made } = yield* carryListings(Effect.tap(transaction.hold(Effect.gen(function* () {
      const walked = yield* files.walk(info.root, { includeHidden: adapter.includeHidden ?? false })
      const ctx = files.context(info, walked.files)
      const unknown = supersedes.find((ref) => !ref.startsWith(`${bundle}//`) || !ctx.exists(`${ref.slice(bundle.length + 2)}.md`))
      if (unknown !== undefined) {
        return yield* new UsageError({ message: `--supersedes: no memory ${unknown} in bundle '${bundle}'`, hint: `name an existing memory of this bundle, e.g. ${shellCommand("akm search", `${bundle}//${memoryDir}/`)} --type memory` })
      }
      let conceptId = `${memoryDir}/${slug}`
      for (let n = 2; ctx.exists(`${conceptId}.md`); n++) conceptId = `${memoryDir}/${slug}-${n}`
      const changes = yield* authorRedacted(create, {
        type: "memory",
        conceptId,
        title,
        description: redact(clip(firstSentence(text), DESCRIPTION_CHARS)),
        body: redact(text.endsWith("\n") ? text : `${text}\n`),
        ...(fields === undefined ? {} : { fields: redactFields(fields, redact) })
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
    })), ({ made }) => (made._tag === "Right" && made.right.status === "accepted" ? refreshIndex([bundle]) : Effect.void)))
    if (made._tag === "Right") return (warning === undefined ? made.right : { ...made.right, warning }) satisfies RememberResult as RememberResult
    const error = made.left
    const taken = error._tag === "StaleBeforeHash" && error.expected === null && changes.some((c) => c.path === error.path && c.beforeHash === null)
    if (!taken || attempt >= NAME_ATTEMPTS) return yield* Effect.fail(error)
  }
})

/**
 * Automatic capture (hooks, session extraction; `akm remember --background`):
 * while the tier cannot safely reach low water, the text waits in state.db as
 * evidence instead of becoming a memory file (R-MEM-2, seed 002 §13.39);
 * otherwise it is a remember.
 */
export const captureMemory = Effect.fn("remember.capture")(function* (input: RememberInput) {
  const bundle = yield* writeTarget(input.bundle)
  const tier = yield* readTier(bundle)
  if (tier !== undefined) {
    const { state, policy, size } = yield* stateOfTier(tier)
    if (state === "blocked" && policy.backgroundIntakeWhenBlocked === "queue") {
      const redact = yield* (yield* Redactor).snapshot
      const nowMs = yield* Clock.currentTimeMillis
      const data = yield* queuedCaptureData(input, nowMs, redact)
      const [row] = yield* (yield* EvidenceStore).add([{
        kind: "session",
        source: "memory",
        note: redact(input.text.trim()),
        origin: `${INTAKE_ORIGIN}${bundle}`,
        observedAt: new Date(nowMs).toISOString(),
        ...(data === undefined ? {} : { data })
      }])
      return {
        queued: true,
        bundle,
        evidenceId: row!.id,
        warning: `memory tier '${bundle}' is blocked (${size.items} items, high water ${policy.highWaterItems}, and no safe reduction reaches low water ${policy.lowWaterItems}): queued in state.db instead of writing a memory file`
      } satisfies CaptureResult as CaptureResult
    }
  }
  // The tier takes writes again: what was queued earlier is written first, in order (R-MEM-2).
  yield* drainIntake(bundle)
  return (yield* remember({ ...input, bundle })) satisfies CaptureResult as CaptureResult
})
