import type { ProjectResult } from "../../../domain/Adapter.js"
import type { Diagnostic } from "../../../domain/Diagnostic.js"
import { stringField, stringListField } from "../core/Frontmatter.js"
import { makeProjection, nameFromFile } from "../core/Projection.js"
import type { RuleBook } from "../core/RuleBook.js"
import { readTask, type TaskCheck } from "./taskDefinition.js"

/**
 * A task file's projection: its schedule, target and parameter names become
 * hints; a prompt is its content. `codeFor` lets a host adapter fold the task
 * checks into its own codes (the akm adapter reports them all as
 * `invalid-task-yaml`).
 */
export const projectTaskFile = (path: string, text: string, book: RuleBook, codeFor: (check: TaskCheck) => string = (check) => check): ProjectResult => {
  const task = readTask(text)
  const extra = {
    ...(task.schedule === undefined ? {} : { schedule: task.schedule }),
    ...(task.target === undefined ? {} : { target: task.target.kind }),
    ...(task.enabled === undefined ? {} : { enabled: task.enabled })
  }
  const diagnostics: Array<Diagnostic> = task.findings.flatMap((finding) => book.report(codeFor(finding.check), path, finding.message, { line: finding.line }))
  const projection = makeProjection(
    {
      type: "task",
      name: stringField(task.data, "name") ?? nameFromFile(path),
      description: stringField(task.data, "description"),
      tags: stringListField(task.data, "tags"),
      hints: [
        ...(task.schedule === undefined ? [] : [task.schedule]),
        ...(task.target === undefined || task.target.kind === "prompt" ? [] : [task.target.value]),
        ...task.params,
        ...task.envKeys
      ],
      content: task.target?.kind === "prompt" ? task.target.value : undefined
    },
    Object.keys(extra).length === 0 ? {} : { extra }
  )
  return { projection, diagnostics }
}
