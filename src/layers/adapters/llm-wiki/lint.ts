import { Effect } from "effect"
import type { LintItem, ValidateContext } from "../../../domain/Adapter.js"
import type { Diagnostic } from "../../../domain/Diagnostic.js"
import type { RuleBook } from "../core/RuleBook.js"
import { isReservedName, RAW_DIR } from "./layout.js"

/** `uncited-raw`: a file under raw/ that no page cites in `sources:`. */
export const lintLlmWiki = (
  ctx: ValidateContext,
  items: ReadonlyArray<LintItem>,
  book: RuleBook
): Effect.Effect<ReadonlyArray<Diagnostic>> => {
  const cited = new Set<string>()
  for (const { projection } of items) {
    const sources = (projection.extra as { sources?: ReadonlyArray<string> } | undefined)?.sources ?? []
    for (const source of sources) cited.add(source)
  }
  return Effect.succeed(
    ctx.files
      .filter((file) => file.path.startsWith(RAW_DIR) && !isReservedName(file.path) && !cited.has(file.path))
      .flatMap((file) => book.report("uncited-raw", file.path, `${file.path} is not cited by any page's sources`))
  )
}
