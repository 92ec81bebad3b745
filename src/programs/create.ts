import { Effect } from "effect"
import { Conflict, UsageError } from "../domain/Errors.js"
import { parseFieldArgs } from "../domain/FieldArgs.js"
import { sha256Hex } from "../domain/Proposal.js"
import { redactFields } from "../domain/Redaction.js"
import { BundleFiles } from "../services/BundleFiles.js"
import { Redactor } from "../services/Redactor.js"
import { authorRedacted } from "./proposals/authorRedacted.js"
import { authoringConflict, decodeText, localFile, proposeAndApply, writeTarget } from "./proposals/direct.js"
import { refuseSecretSource } from "./proposals/secretGuard.js"
import { resolveBundle } from "./scan.js"

export interface CreateInput {
  /** The item type in the bundle's format ("knowledge", "skill", "memory", "agent", …). */
  readonly type: string
  readonly bundle?: string | undefined
  readonly title: string
  readonly description?: string | undefined
  readonly body?: string | undefined
  /** A local file holding the body. */
  readonly bodyFile?: string | undefined
  /** `key=value` arguments for the adapter's fields; a repeated key makes a list. */
  readonly fields?: ReadonlyArray<string> | undefined
  readonly cwd: string
  readonly home: string
}

/**
 * `akm create <type>`: a new native item rendered by the target bundle's
 * adapter (its `create`), made as a proposal and accepted in the same step
 * when policy allows.
 */
export const createItem = Effect.fn("create")(function* (input: CreateInput) {
  const files = yield* BundleFiles
  if (input.body !== undefined && input.bodyFile !== undefined) return yield* new UsageError({ message: "--body and --body-file contradict each other", hint: "give the body one way" })
  const title = input.title.trim()
  if (title === "") return yield* new UsageError({ message: "an item needs a title", hint: "give one with --title" })
  const fields = yield* parseFieldArgs(input.fields ?? [])
  let body = input.body ?? ""
  if (input.bodyFile !== undefined) {
    const { file, bytes, secretName } = yield* localFile(input.bodyFile, input)
    if (secretName) return yield* refuseSecretSource(file)
    const decoded = decodeText(bytes)
    if (decoded === undefined) return yield* new UsageError({ message: `${file} is not UTF-8 text`, hint: "the body is markdown or plain text" })
    body = decoded
  }
  const bundle = yield* writeTarget(input.bundle)
  const { info, adapter } = yield* resolveBundle(bundle)
  if (adapter.create === undefined) return yield* new Conflict({ message: `the ${adapter.id} adapter of bundle '${bundle}' cannot author items`, hint: "create it in a writable akm or okf bundle with --bundle <name>" })
  const walked = yield* files.walk(info.root, { includeHidden: adapter.includeHidden ?? false })
  const description = input.description?.trim()
  // The item's text is written only redacted (spec 08 §2.1).
  const redact = yield* (yield* Redactor).snapshot
  const changes = yield* authorRedacted(adapter.create, {
    type: input.type,
    title: redact(title),
    ...(description === undefined || description === "" ? {} : { description: redact(description) }),
    body: redact(body),
    ...(Object.keys(fields).length === 0 ? {} : { fields: redactFields(fields, redact) })
  }, files.context(info, walked.files)).pipe(Effect.mapError(authoringConflict))
  return yield* proposeAndApply({
    title: `Create ${input.type}: ${redact(title)}`,
    recipe: "create",
    changeClass: "mechanical",
    changes,
    evidence: [{ kind: "user", id: "create", hash: sha256Hex(JSON.stringify([input.type, title, description ?? null, body, fields])) }],
    bundle,
    root: info.root
  })
})
