import { Effect } from "effect"
import type { ItemPlan, ValidateContext } from "../../../domain/Adapter.js"
import type { RuntimeExport } from "../../../domain/RuntimeExport.js"
import { readTask } from "../akm-task/taskDefinition.js"
import { workflowExport } from "../akm-workflow/exports.js"
import type { RuleBook } from "../core/RuleBook.js"
import { envExport, exportOfFile, textExport } from "../dotenv/envExports.js"
import { planAkm } from "./plan.js"

/** What each runnable item kind of an akm bundle exports as. */
const exportOf = (bundle: string, item: ItemPlan) => (text: string): RuntimeExport => {
  switch (item.kind) {
    case "env":
      return envExport(bundle, item.conceptId, text)
    case "task": {
      const task = readTask(text)
      return textExport(bundle, item.conceptId, "task", text, { env: task.envKeys, params: task.params })
    }
    case "workflow":
      return workflowExport(bundle, item.conceptId, text)
    default:
      return textExport(bundle, item.conceptId, "script", text)
  }
}

const RUNNABLE = new Set(["env", "task", "workflow", "script"])

/** env/, tasks/, workflows/ and scripts/ of an akm bundle, as runtime exports (spec 07 §1). */
export const akmExports = (ctx: ValidateContext, book: RuleBook): Effect.Effect<ReadonlyArray<RuntimeExport>> =>
  Effect.map(
    Effect.forEach(planAkm(ctx.files, book).items.filter((item) => RUNNABLE.has(item.kind ?? "")), (item) =>
      exportOfFile(ctx, item.files[0]!, exportOf(ctx.bundle.name, item))),
    (lists) => lists.flat()
  )
