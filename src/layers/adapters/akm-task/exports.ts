import { Effect } from "effect"
import type { ValidateContext } from "../../../domain/Adapter.js"
import type { RuntimeExport } from "../../../domain/RuntimeExport.js"
import type { RuleBook } from "../core/RuleBook.js"
import { exportOfFile, textExport } from "../dotenv/envExports.js"
import { planAkmTask } from "./plan.js"
import { readTask } from "./taskDefinition.js"

/** Every task file as a runtime export (spec 07 §1): what `akm task enable` binds, digest pinned. */
export const akmTaskExports = (ctx: ValidateContext, book: RuleBook): Effect.Effect<ReadonlyArray<RuntimeExport>> =>
  Effect.map(
    Effect.forEach(planAkmTask(ctx.files, book).items, (item) =>
      exportOfFile(ctx, item.files[0]!, (text) => {
        const task = readTask(text)
        return textExport(ctx.bundle.name, item.conceptId, "task", text, { env: task.envKeys, params: task.params })
      })),
    (lists) => lists.flat()
  )
