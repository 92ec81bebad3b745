import { Effect, Either } from "effect"
import { stringify } from "yaml"
import { AuthoringRefused, type CreateRequest, type ValidateContext } from "../../../domain/Adapter.js"
import type { FileChange } from "../../../domain/FileChange.js"
import { headingSlug, validateConceptId } from "../../../domain/Ref.js"
import type { AuthoringParts, RuleBook } from "../core/RuleBook.js"
import { readTask, TASK_TARGETS, type TaskCheck } from "./taskDefinition.js"

const PREAMBLE = `A task is a YAML file that says when something should run; akm never runs or schedules it by itself:
enabling is a local act (\`akm task enable\`), and \`enabled:\` in the file is advisory.`

export const TASK_EXAMPLE = `version: 2
description: Summarise yesterday's failed CI runs
schedule: "0 6 * * 1-5"
workflow: workflows/ci-triage
params:
  branch: main
timeout: 15m
env: [GITHUB_TOKEN]
`

export const AKM_TASK_AUTHORING: AuthoringParts = {
  preamble: PREAMBLE,
  examples: [TASK_EXAMPLE],
  allowedPaths: ["*.yml", "**/*.yml"],
  constraints: ["env lists key names only, never values", "exactly one of workflow, prompt or command"]
}

const isRecord = (value: unknown): value is Record<string, unknown> => value !== null && typeof value === "object" && !Array.isArray(value)

/**
 * Renders a task definition from a request: `fields` carry `schedule`, the
 * target (`workflow`/`prompt`/`command`), `params`, `timeout`, `env`; a body
 * with no other target becomes the prompt. The result must pass the same
 * checks the validator runs, or the request is refused.
 */
export const renderTask = (request: CreateRequest, book: RuleBook, codeFor: (check: TaskCheck) => string = (check) => check): Either.Either<string, AuthoringRefused> => {
  const fields = request.fields ?? {}
  const hasTarget = TASK_TARGETS.some((kind) => fields[kind] !== undefined)
  const document: Record<string, unknown> = {
    version: 2,
    description: request.description ?? request.title,
    schedule: fields["schedule"],
    ...Object.fromEntries(TASK_TARGETS.filter((kind) => fields[kind] !== undefined).map((kind) => [kind, fields[kind]])),
    ...(!hasTarget && request.body.trim() !== "" ? { prompt: request.body.trim() } : {}),
    ...(isRecord(fields["params"]) ? { params: fields["params"] } : {}),
    ...(fields["timeout"] === undefined ? {} : { timeout: fields["timeout"] }),
    ...(fields["env"] === undefined ? {} : { env: fields["env"] })
  }
  const text = stringify(Object.fromEntries(Object.entries(document).filter(([, v]) => v !== undefined)), { lineWidth: 0 })
  const problems = readTask(text).findings.filter((finding) => book.report(codeFor(finding.check), "", finding.message).some((d) => d.severity === "error"))
  if (problems.length > 0) {
    return Either.left(new AuthoringRefused(`the task would be invalid: ${problems.map((p) => p.message).join("; ")}`, "pass fields.schedule and one of fields.workflow, fields.prompt or fields.command"))
  }
  return Either.right(text)
}

/** Creates `<id>.yml`; refuses an existing target or an id that is not a ref. */
export const createTask = (request: CreateRequest, ctx: ValidateContext, book: RuleBook): Effect.Effect<ReadonlyArray<FileChange>, AuthoringRefused> =>
  Effect.gen(function* () {
    const conceptId = (request.conceptId ?? headingSlug(request.title)).replace(/\.ya?ml$/, "")
    if (Either.isLeft(validateConceptId(conceptId))) return yield* Effect.fail(new AuthoringRefused(`'${conceptId}' is not a valid concept id`, "use a path such as nightly-report or reports/nightly"))
    const path = `${conceptId}.yml`
    if (ctx.exists(path) || ctx.exists(`${conceptId}.yaml`)) return yield* Effect.fail(new AuthoringRefused(`${conceptId} already exists`, "choose another name, or edit the existing task"))
    const text = yield* renderTask(request, book)
    return [{ bundle: ctx.bundle.name, path, beforeHash: null, after: text }]
  })
