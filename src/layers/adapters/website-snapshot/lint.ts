import { Effect, Option } from "effect"
import type { ValidateContext } from "../../../domain/Adapter.js"
import type { Diagnostic } from "../../../domain/Diagnostic.js"
import type { RuleBook } from "../core/RuleBook.js"
import { MANIFEST_PATH, readManifest } from "./manifest.js"

/** Whole-snapshot rules: the manifest's own shape and pages it lists that are gone. */
export const lintSnapshot = (book: RuleBook) => (ctx: ValidateContext): Effect.Effect<ReadonlyArray<Diagnostic>> =>
  Effect.gen(function* () {
    const text = yield* Effect.option(ctx.readText(MANIFEST_PATH))
    if (Option.isNone(text)) return book.report("invalid-manifest", MANIFEST_PATH, "the snapshot has no readable manifest.json")
    const read = readManifest(text.value)
    const diagnostics: Array<Diagnostic> = read.problems.flatMap((problem) => book.report(problem.code, MANIFEST_PATH, problem.message))
    if (read.manifest === undefined) return diagnostics
    if (read.manifest.complete === false) diagnostics.push(...book.report("incomplete-snapshot", MANIFEST_PATH, `the crawl of ${read.manifest.url} stopped at a limit; the snapshot is partial`))
    for (const page of read.manifest.pages) {
      if (!ctx.exists(page.path)) diagnostics.push(...book.report("missing-page", MANIFEST_PATH, `${page.path} (${page.url}) is listed but missing on disk`))
    }
    return diagnostics
  })
