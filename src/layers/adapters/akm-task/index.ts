import { Effect } from "effect"
import type { BundleAdapter } from "../../../domain/Adapter.js"
import type { RuleRow } from "../core/RuleBook.js"
import { ruleDrivenAdapter } from "../core/RuleDrivenAdapter.js"
import { AKM_TASK_AUTHORING, createTask } from "./authoring.js"
import { akmTaskExports } from "./exports.js"
import { planAkmTask } from "./plan.js"
import { probeAkmTask } from "./probe.js"
import { projectTaskFile } from "./project.js"
import { akmTaskRules } from "./rules.js"

/** Builds the adapter from a rule table, so a test can prove the table drives it (R-AD-3). */
export const makeAkmTaskAdapter = (rules: ReadonlyArray<RuleRow>): BundleAdapter =>
  ruleDrivenAdapter(
    {
      id: "akm-task",
      // 2: schedules are checked by croner (domain/CronSchedule.ts); step and range messages changed.
      version: "2",
      writable: true,
      description: "scheduled task definitions (.yml with version 2, schedule and one target); indexed, never run or scheduled by indexing"
    },
    rules,
    (book) => ({
      probe: probeAkmTask,
      plan: (files) => planAkmTask(files, book),
      project: (item, ctx) => Effect.map(ctx.readText(item.files[0]!), (text) => projectTaskFile(item.files[0]!, text, book)),
      authoring: AKM_TASK_AUTHORING,
      create: (request, ctx) => createTask(request, ctx, book),
      exports: (ctx) => akmTaskExports(ctx, book)
    })
  )

export const akmTaskAdapter: BundleAdapter = makeAkmTaskAdapter(akmTaskRules)
