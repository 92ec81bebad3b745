import { Effect } from "effect"
import type { ValidateContext } from "../../../domain/Adapter.js"
import type { RuntimeExport } from "../../../domain/RuntimeExport.js"
import type { RuleBook } from "../core/RuleBook.js"
import { envExport, exportOfFile } from "./envExports.js"
import { planDotenv } from "./plan.js"

/** A dotenv bundle exports its env files (secrets are resolved by reference, never exported). */
export const dotenvExports = (ctx: ValidateContext, book: RuleBook): Effect.Effect<ReadonlyArray<RuntimeExport>> =>
  Effect.map(
    Effect.forEach(planDotenv(ctx.files, book).items.filter((item) => item.kind === "env"), (item) =>
      exportOfFile(ctx, item.files[0]!, (text) => envExport(ctx.bundle.name, item.conceptId, text))),
    (lists) => lists.flat()
  )
