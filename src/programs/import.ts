import { Effect } from "effect"
import * as path from "node:path"
import { parse as parseYaml } from "yaml"
import { Conflict, UsageError } from "../domain/Errors.js"
import { sha256Hex } from "../domain/Proposal.js"
import { headingSlug } from "../domain/Ref.js"
import { redactFields } from "../domain/Redaction.js"
import { BundleFiles } from "../services/BundleFiles.js"
import { Redactor } from "../services/Redactor.js"
import { authorRedacted } from "./proposals/authorRedacted.js"
import { authoringConflict, decodeText, localFile, proposeAndApply, writeTarget } from "./proposals/direct.js"
import { refuseSecretSource } from "./proposals/secretGuard.js"
import { resolveBundle } from "./scan.js"

export interface ImportInput {
  /** A local path or a file:// URL. */
  readonly source: string
  readonly bundle?: string | undefined
  /** The item type (default: the file's frontmatter `type`, else knowledge). */
  readonly type?: string | undefined
  readonly cwd: string
  readonly home: string
}

const FRONTMATTER = /^---\r?\n([\s\S]*?)\r?\n---[ \t]*(?:\r?\n|$)/

/** A markdown document's frontmatter fields (when it has a readable block) and its body. */
export const splitFrontmatter = (text: string): { readonly fields: Readonly<Record<string, unknown>>; readonly body: string } => {
  const match = FRONTMATTER.exec(text)
  if (match === null) return { fields: {}, body: text }
  try {
    const parsed: unknown = parseYaml(match[1]!)
    if (parsed === null || typeof parsed !== "object" || Array.isArray(parsed)) return { fields: {}, body: text }
    return { fields: parsed as Record<string, unknown>, body: text.slice(match[0].length).replace(/^\r?\n/, "") }
  } catch {
    // Not YAML: keep the block as part of the text rather than lose it.
    return { fields: {}, body: text }
  }
}

const firstHeading = (body: string): string | undefined => /^#{1,6}\s+(.+?)\s*#*\s*$/m.exec(body)?.[1]

const text = (value: unknown): string | undefined => (typeof value === "string" && value.trim() !== "" ? value.trim() : undefined)

/** Keys the request carries itself; the rest of the frontmatter goes into `fields`. */
const OWN_KEYS = new Set(["title", "name", "description", "type"])

/**
 * `akm import <file>`: a local text file becomes an item of the target bundle
 * (default type knowledge) through its adapter's `create`, named after the
 * file; its frontmatter supplies title, description, type and other fields.
 * Made as a proposal and accepted in the same step when policy allows.
 */
export const importFile = Effect.fn("import")(function* (input: ImportInput) {
  const files = yield* BundleFiles
  const { file, bytes, secretName } = yield* localFile(input.source, input)
  if (secretName) return yield* refuseSecretSource(file)
  const content = decodeText(bytes)
  if (content === undefined) return yield* new UsageError({ message: `${file} is not UTF-8 text`, hint: "import text files (markdown, plain text)" })
  const bundle = yield* writeTarget(input.bundle)
  const { info, adapter } = yield* resolveBundle(bundle)
  if (adapter.create === undefined) return yield* new Conflict({ message: `the ${adapter.id} adapter of bundle '${bundle}' cannot author items`, hint: "import into a writable akm or okf bundle with --bundle <name>" })
  const { fields, body } = splitFrontmatter(content)
  const stem = path.basename(file).replace(/\.[^.]*$/, "")
  const title = text(fields["title"]) ?? text(fields["name"]) ?? firstHeading(body) ?? stem
  const description = text(fields["description"])
  // A note from another format keeps its identity: its type maps onto the target's types and, when
  // the mapping changes it, the original type stays in the frontmatter (so nothing is lost).
  const sourceType = text(fields["type"])
  const type = input.type ?? (sourceType === undefined ? "knowledge" : adapter.importType?.(sourceType) ?? sourceType)
  const keptType = input.type === undefined && sourceType !== undefined && sourceType.toLowerCase() !== type.toLowerCase() ? { type: sourceType } : {}
  const extra = { ...Object.fromEntries(Object.entries(fields).filter(([key]) => !OWN_KEYS.has(key))), ...keptType }
  const walked = yield* files.walk(info.root, { includeHidden: adapter.includeHidden ?? false })
  // The imported text is written only redacted (spec 08 §2.1).
  const redact = yield* (yield* Redactor).snapshot
  const changes = yield* authorRedacted(adapter.create, {
    type,
    conceptId: headingSlug(redact(stem)) || headingSlug(redact(title)) || "imported",
    title: redact(title),
    ...(description === undefined ? {} : { description: redact(description) }),
    body: redact(body),
    ...(Object.keys(extra).length === 0 ? {} : { fields: redactFields(extra, redact) })
  }, files.context(info, walked.files)).pipe(Effect.mapError(authoringConflict))
  return yield* proposeAndApply({
    title: `Import: ${redact(title)}`,
    recipe: "import",
    changeClass: "mechanical",
    changes,
    evidence: [{ kind: "user", id: redact(file), hash: sha256Hex(bytes) }],
    bundle,
    root: info.root
  })
})
