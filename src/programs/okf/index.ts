import { createTwoFilesPatch, FILE_HEADERS_ONLY } from "diff"
import { Effect, Option } from "effect"
import { UsageError } from "../../domain/Errors.js"
import type { FileChange } from "../../domain/FileChange.js"
import { sha256Hex } from "../../domain/Proposal.js"
import { shellCommand } from "../../domain/ShellQuote.js"
import { BundleFiles } from "../../services/BundleFiles.js"
import { WorkspaceConfig } from "../../services/WorkspaceConfig.js"
import { proposeAndApply, type DirectResult } from "../proposals/direct.js"
import { resolveBundle } from "../scan.js"

export interface OkfIndexInput {
  /** One bundle; default every writable okf bundle. */
  readonly bundle?: string | undefined
  /** Write the regenerated files through one mechanical proposal. */
  readonly write: boolean
}

export interface OkfIndexFile {
  readonly bundle: string
  /** Bundle-relative. */
  readonly path: string
  readonly action: "created" | "updated" | "unchanged"
}

export interface OkfIndexResult {
  /** The okf bundles looked at. */
  readonly bundles: ReadonlyArray<string>
  readonly files: ReadonlyArray<OkfIndexFile>
  /** Unified diff of every index.md that is out of date (empty when all are current). */
  readonly diff: string
  /** True when every index.md was current before the command (without --write: exit 0, else 1). */
  readonly current: boolean
  /** With --write: the proposal that carries the regenerated files. */
  readonly proposal?: DirectResult
}

/** The bundles to look at: the one named, else every writable bundle whose adapter generates listings. */
const targets = (named: string | undefined) =>
  Effect.gen(function* () {
    if (named !== undefined) {
      const resolved = yield* resolveBundle(named)
      if (resolved.adapter.listings === undefined) {
        return yield* new UsageError({ message: `bundle '${named}' is read by the ${resolved.adapter.id} adapter, which has no index.md files to generate`, hint: "name an okf bundle (see `akm bundle list`)" })
      }
      return [resolved]
    }
    const config = yield* (yield* WorkspaceConfig).read
    const all = yield* Effect.forEach(Object.keys(config.bundles), (name) => Effect.either(resolveBundle(name)))
    return all.flatMap((r) => (r._tag === "Right" && r.right.adapter.listings !== undefined && r.right.info.writable ? [r.right] : []))
  })

/**
 * `akm okf index [--write]` (spec 03 "okf", OKF §8): regenerates every
 * folder's index.md from the concepts' frontmatter (the adapter's `listings`
 * facet). Without --write it only reports — the diff, and `current` false
 * when any index.md is out of date, so CI can fail on it. With --write the
 * changes go through ONE mechanical proposal (applied at once when
 * `policy.autoApply` lists mechanical). Never part of `akm index`.
 */
export const okfIndex = Effect.fn("okf.index")(function* (input: OkfIndexInput) {
  const files = yield* BundleFiles
  const bundles = yield* targets(input.bundle)
  const changes: Array<FileChange> = []
  const listed: Array<OkfIndexFile> = []
  let diff = ""
  for (const { info, adapter } of bundles) {
    const walked = yield* files.walk(info.root, { includeHidden: adapter.includeHidden ?? false })
    const ctx = files.context(info, walked.files)
    for (const listing of yield* adapter.listings!(ctx)) {
      const current = ctx.exists(listing.path) ? Option.getOrUndefined(yield* Effect.option(ctx.readText(listing.path))) : undefined
      if (current === listing.text) {
        listed.push({ bundle: info.name, path: listing.path, action: "unchanged" })
        continue
      }
      const beforeHash = ctx.exists(listing.path) ? (yield* files.hash(info.root, [listing.path])).hash : null
      changes.push({ bundle: info.name, path: listing.path, beforeHash, after: listing.text })
      listed.push({ bundle: info.name, path: listing.path, action: beforeHash === null ? "created" : "updated" })
      const name = bundles.length > 1 ? `${info.name}/${listing.path}` : listing.path
      diff += createTwoFilesPatch(beforeHash === null ? "/dev/null" : `a/${name}`, `b/${name}`, current ?? "", listing.text, undefined, undefined, { headerOptions: FILE_HEADERS_ONLY })
    }
  }
  const base = { bundles: bundles.map((b) => b.info.name), files: listed, diff, current: changes.length === 0 }
  if (!input.write || changes.length === 0) return base satisfies OkfIndexResult as OkfIndexResult
  const first = bundles.find((b) => b.info.name === changes[0]!.bundle)!
  const proposal = yield* proposeAndApply({
    title: `Regenerate ${changes.length} OKF index.md file${changes.length === 1 ? "" : "s"}`,
    recipe: "okf-index",
    changeClass: "mechanical",
    changes,
    evidence: [{ kind: "user", id: "okf-index", hash: sha256Hex(changes.map((c) => `${c.bundle}\n${c.path}\n${c.after as string}`)) }],
    bundle: first.info.name,
    root: first.info.root
  })
  return { ...base, proposal } satisfies OkfIndexResult as OkfIndexResult
})

/** The command that writes what `akm okf index` reports, for hints. */
export const okfIndexWriteCommand = (bundle: string | undefined): string =>
  bundle === undefined ? "akm okf index --write" : shellCommand("akm okf index --write --bundle", bundle)
