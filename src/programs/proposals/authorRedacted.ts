import type { Effect } from "effect"
import type { AuthoringRefused, BundleAdapter, CreateRequest, ValidateContext } from "../../domain/Adapter.js"
import type { FileChange } from "../../domain/FileChange.js"
import type { Redacted, RedactedFields } from "../../domain/Redaction.js"

/** A create request whose user-supplied text has passed the redactor (spec 08 §2.1): a raw string does not compile here. */
export interface RedactedCreateRequest extends Omit<CreateRequest, "title" | "description" | "body" | "fields"> {
  readonly title: Redacted
  readonly description?: Redacted
  readonly body: Redacted
  readonly fields?: RedactedFields
}

/**
 * The one way `remember`, `import` and `create` turn user text into a
 * proposal's files: through the adapter's `create`, with redacted text only.
 */
export const authorRedacted = (
  create: NonNullable<BundleAdapter["create"]>,
  request: RedactedCreateRequest,
  ctx: ValidateContext
): Effect.Effect<ReadonlyArray<FileChange>, AuthoringRefused> => create(request, ctx)
