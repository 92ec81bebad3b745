import { Effect } from "effect"
import type { FileUnreadable, ItemPlan, ProjectResult, ValidateContext } from "../../../domain/Adapter.js"
import type { RuleBook } from "../core/RuleBook.js"
import { projectEnvFile, projectSecret } from "./envItems.js"

export const projectDotenv = (item: ItemPlan, ctx: ValidateContext, book: RuleBook): Effect.Effect<ProjectResult, FileUnreadable> => {
  const path = item.files[0]!
  if (item.kind === "secret") return Effect.succeed(projectSecret(path))
  return Effect.map(ctx.readText(path), (text) => projectEnvFile(path, text, book))
}
