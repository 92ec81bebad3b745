import type { Diagnostic } from "../../../domain/Diagnostic.js"
import { headingSlug } from "../../../domain/Ref.js"
import { parseDuration, placeholders, STEP_KINDS, type PlanParam, type PlanStep, type WorkflowPlan } from "../../../domain/WorkflowPlan.js"
import type { Frontmatter } from "../core/Frontmatter.js"
import type { MarkdownScan } from "../core/Markdown.js"
import type { RuleBook } from "../core/RuleBook.js"

/**
 * The structure of a workflow document (spec 03 "akm-workflow", spec 07 §2):
 * frontmatter declares `steps` (ids, or mappings with `id`), typed `params`,
 * `defaults` and a `budget`; the body has one `## <step-id>` section per
 * declared step and optionally one `### gate` inside a step. Checked here once
 * for the akm-workflow adapter and for `workflows/` in akm bundles.
 */
export type WorkflowCheck = "invalid-workflow-structure" | "missing-step-section" | "undeclared-step-section" | "untyped-param" | "empty-gate" | "invalid-step" | "unknown-param"

export interface WorkflowFinding {
  readonly check: WorkflowCheck
  readonly message: string
  readonly line?: number
}

export interface WorkflowStep {
  readonly id: string
  readonly title?: string
  /** The step's entry as declared (a string, or its mapping), read into a plan step once the body is known. */
  readonly entry?: Readonly<Record<string, unknown>>
}

export interface WorkflowParam {
  readonly name: string
  readonly type?: string
  readonly description?: string
}

export interface WorkflowShape {
  readonly steps: ReadonlyArray<WorkflowStep>
  readonly params: ReadonlyArray<WorkflowParam>
  readonly findings: ReadonlyArray<WorkflowFinding>
  /** What `akm workflow run` executes; undefined while the workflow has errors. */
  readonly plan?: WorkflowPlan
}

export const PARAM_TYPES: ReadonlyArray<string> = ["string", "number", "integer", "boolean", "path", "ref", "list", "enum"]

const isRecord = (value: unknown): value is Record<string, unknown> => value !== null && typeof value === "object" && !Array.isArray(value)
const isPositive = (value: unknown): boolean => (typeof value === "number" && value > 0) || (typeof value === "string" && /^(?:\d+(?:\.\d+)?(?:ms|s|m|h|d))+$/.test(value.trim()))

const readSteps = (value: unknown, line: number | undefined, findings: Array<WorkflowFinding>): ReadonlyArray<WorkflowStep> => {
  const at = line === undefined ? {} : { line }
  if (value === undefined || value === null) {
    findings.push({ check: "invalid-workflow-structure", message: "the frontmatter declares no `steps`; list the step ids in order", ...at })
    return []
  }
  if (!Array.isArray(value) || value.length === 0) {
    findings.push({ check: "invalid-workflow-structure", message: "`steps` must be a non-empty list of step ids (or mappings with `id`)", ...at })
    return []
  }
  const steps: Array<WorkflowStep> = []
  const seen = new Set<string>()
  value.forEach((entry: unknown, index) => {
    const id = typeof entry === "string" ? entry.trim() : isRecord(entry) && typeof entry["id"] === "string" ? entry["id"].trim() : ""
    if (id === "") {
      findings.push({ check: "invalid-workflow-structure", message: `step ${index + 1} has no id; write a string or a mapping with \`id\``, ...at })
      return
    }
    if (seen.has(headingSlug(id))) {
      findings.push({ check: "invalid-workflow-structure", message: `step '${id}' is declared twice`, ...at })
      return
    }
    seen.add(headingSlug(id))
    const title = isRecord(entry) && typeof entry["title"] === "string" && entry["title"].trim() !== "" ? entry["title"].trim() : undefined
    steps.push({ id, ...(title === undefined ? {} : { title }), ...(isRecord(entry) ? { entry } : {}) })
  })
  return steps
}

const readParams = (value: unknown, line: number | undefined, findings: Array<WorkflowFinding>): ReadonlyArray<WorkflowParam> => {
  const at = line === undefined ? {} : { line }
  if (value === undefined || value === null) return []
  if (!isRecord(value)) {
    findings.push({ check: "invalid-workflow-structure", message: "`params` must be a mapping of parameter name to its type (or to a mapping with `type`)", ...at })
    return []
  }
  const params: Array<WorkflowParam> = []
  for (const [name, spec] of Object.entries(value)) {
    const type = typeof spec === "string" ? spec.trim() : isRecord(spec) && typeof spec["type"] === "string" ? spec["type"].trim() : undefined
    const description = isRecord(spec) && typeof spec["description"] === "string" ? spec["description"].trim() : undefined
    if (type === undefined || type === "") {
      findings.push({ check: "untyped-param", message: `param '${name}' has no type; give it \`type:\` (${PARAM_TYPES.join(", ")})`, ...at })
    } else if (!PARAM_TYPES.includes(type)) {
      findings.push({ check: "untyped-param", message: `param '${name}' has type '${type}', which is not one of ${PARAM_TYPES.join(", ")}`, ...at })
    } else if (type === "enum" && !(isRecord(spec) && Array.isArray(spec["values"]) && spec["values"].length > 0)) {
      findings.push({ check: "untyped-param", message: `enum param '${name}' lists no \`values\``, ...at })
    }
    params.push({ name, ...(type === undefined || type === "" ? {} : { type }), ...(description === undefined || description === "" ? {} : { description }) })
  }
  return params
}

const STEP_FIELDS = new Set(["id", "title", "description", "kind", "command", "shell", "cwd", "timeout", "retries", "prompt", "gate"])
const isArgv = (value: unknown): value is ReadonlyArray<string> =>
  Array.isArray(value) && value.length > 0 && value.every((word) => typeof word === "string" && word !== "")

/**
 * One declared step → what it runs (spec 07 §2): `command` (argv; a string
 * only with `shell: true`), `prompt`, or neither — then its section text is
 * the prompt, or with `kind: gate` / a bare `gate:` it only waits. Problems
 * are findings; the step is then left out of the plan.
 */
const readAction = (
  step: WorkflowStep,
  section: { readonly text: string; readonly gateText?: string | undefined },
  declared: ReadonlySet<string>,
  at: { readonly line?: number },
  findings: Array<WorkflowFinding>
): PlanStep | undefined => {
  const entry = step.entry ?? {}
  const before = findings.length
  const problem = (check: WorkflowCheck, message: string) => findings.push({ check, message: `step '${step.id}': ${message}`, ...at })
  for (const key of Object.keys(entry)) {
    if (!STEP_FIELDS.has(key)) problem("invalid-step", `unknown field \`${key}\`; a step has ${[...STEP_FIELDS].join(", ")}`)
  }
  const kind = entry["kind"]
  if (kind !== undefined && !(typeof kind === "string" && (STEP_KINDS as ReadonlyArray<string>).includes(kind))) {
    problem("invalid-step", `unknown step kind '${String(kind).slice(0, 40)}'; use ${STEP_KINDS.join(", ")}`)
  }
  const hasCommand = entry["command"] !== undefined
  const hasPrompt = entry["prompt"] !== undefined
  if (hasCommand && hasPrompt) problem("invalid-step", "has both `command` and `prompt`; a step does exactly one")
  const shell = entry["shell"]
  if (shell !== undefined && typeof shell !== "boolean") problem("invalid-step", "`shell` is true or false")
  let command: ReadonlyArray<string> | undefined
  if (hasCommand) {
    const value = entry["command"]
    if (shell === true) {
      if (typeof value === "string" && value.trim() !== "") command = [value]
      else if (isArgv(value) && value.length === 1) command = value
      else problem("invalid-step", "with `shell: true`, `command` is one string (the shell command line)")
    } else if (isArgv(value)) command = value
    else if (typeof value === "string") problem("invalid-step", "`command` is a string; write it as an argv list such as [npm, test] (a string runs through a shell only with `shell: true`)")
    else problem("invalid-step", "`command` must be a non-empty list of strings (argv), e.g. [npm, test]")
  } else if (shell !== undefined || entry["cwd"] !== undefined || entry["retries"] !== undefined) {
    problem("invalid-step", "`shell`, `cwd` and `retries` belong to a `command` step")
  }
  if (kind === "command" && !hasCommand) problem("invalid-step", "is `kind: command` but has no `command`")
  if (kind === "gate" && (hasCommand || hasPrompt)) problem("invalid-step", "is `kind: gate`, which runs no `command` or `prompt`")
  if (kind === "prompt" && hasCommand) problem("invalid-step", "is `kind: prompt` but has a `command`")
  if (hasPrompt && (typeof entry["prompt"] !== "string" || entry["prompt"].trim() === "")) problem("invalid-step", "`prompt` is the instructions, a non-empty string")
  const cwd = entry["cwd"]
  if (cwd !== undefined && (typeof cwd !== "string" || cwd.trim() === "")) problem("invalid-step", "`cwd` is a directory path")
  const timeout = entry["timeout"]
  const timeoutMs = timeout === undefined ? undefined : parseDuration(timeout)
  if (timeout !== undefined && timeoutMs === undefined) problem("invalid-step", "`timeout` is a positive number of seconds or a duration such as 30s, 5m or 1h30m")
  const retries = entry["retries"]
  if (retries !== undefined && !(typeof retries === "number" && Number.isInteger(retries) && retries >= 0 && retries <= 10)) problem("invalid-step", "`retries` is a whole number from 0 to 10")
  const gate = entry["gate"]
  let check: ReadonlyArray<string> | undefined
  if (gate !== undefined && gate !== null) {
    if (!isRecord(gate) || Object.keys(gate).some((key) => key !== "check")) problem("invalid-step", "`gate` is a mapping with an optional `check` (an argv list), e.g. gate: {check: [test, -f, done]}")
    else if (gate["check"] !== undefined) {
      if (isArgv(gate["check"])) check = gate["check"]
      else problem("invalid-step", "`gate.check` must be a non-empty list of strings (argv), e.g. [test, -f, done]")
    }
  }
  const prompt = typeof entry["prompt"] === "string" ? entry["prompt"] : undefined
  const used = [...(command ?? []), ...(typeof cwd === "string" ? [cwd] : []), ...(prompt === undefined ? [] : [prompt]), ...(check ?? [])]
  for (const name of new Set(used.flatMap(placeholders))) {
    if (!declared.has(name)) problem("unknown-param", `uses {{${name}}}, which is not a declared param; declare it under \`params\``)
  }
  if (findings.length > before) return undefined
  const waits = kind === "gate" || (gate !== undefined && gate !== null && !hasCommand && !hasPrompt)
  const resolvedKind = command !== undefined ? "command" : waits ? "gate" : "prompt"
  const gateKind = check !== undefined ? "check" : waits || section.gateText !== undefined ? "confirm" : "none"
  const text = section.text.trim()
  return {
    id: step.id,
    ...(step.title === undefined ? {} : { title: step.title }),
    kind: resolvedKind,
    ...(command === undefined ? {} : { command }),
    ...(shell === true ? { shell: true } : {}),
    ...(typeof cwd === "string" ? { cwd } : {}),
    ...(timeoutMs === undefined ? {} : { timeoutMs }),
    retries: typeof retries === "number" ? retries : 0,
    ...(resolvedKind === "prompt" ? { prompt: prompt ?? (text === "" ? step.title ?? step.id : text) } : {}),
    gate: gateKind,
    ...(check === undefined ? {} : { check }),
    ...(section.gateText === undefined ? {} : { gateText: section.gateText })
  }
}

const readPlanParams = (data: Record<string, unknown>, params: ReadonlyArray<WorkflowParam>): ReadonlyArray<PlanParam> => {
  const defaults = isRecord(data["defaults"]) ? data["defaults"] : {}
  const specs = isRecord(data["params"]) ? data["params"] : {}
  const text = (value: unknown): string | undefined =>
    value === undefined || value === null ? undefined : typeof value === "string" ? value : typeof value === "number" || typeof value === "boolean" ? String(value) : JSON.stringify(value)
  return params.map((param) => {
    const spec = specs[param.name]
    const fallback = text(defaults[param.name]) ?? (isRecord(spec) ? text(spec["default"]) : undefined)
    const values = isRecord(spec) && Array.isArray(spec["values"]) ? spec["values"].map(String) : undefined
    return { name: param.name, type: param.type ?? "string", ...(fallback === undefined ? {} : { default: fallback }), ...(values === undefined ? {} : { values }) }
  })
}

/** Whether the body lines after `from` (a 1-based file line) hold any text before the line `until`. */
const hasContent = (bodyLines: ReadonlyArray<string>, bodyLine: number, from: number, until: number): boolean => {
  for (let line = from + 1; line < until; line++) {
    if ((bodyLines[line - bodyLine] ?? "").trim() !== "") return true
  }
  return false
}

export const checkWorkflow = (frontmatter: Frontmatter, scan: MarkdownScan): WorkflowShape => {
  const findings: Array<WorkflowFinding> = []
  const data = frontmatter.data
  if (data === undefined) {
    // A malformed block is reported as invalid-frontmatter by the caller.
    if (frontmatter.error === undefined) findings.push({ check: "invalid-workflow-structure", message: "a workflow starts with YAML frontmatter that declares its `steps`", line: 1 })
    return { steps: [], params: [], findings }
  }
  const lines = frontmatter.keyLines
  const steps = readSteps(data["steps"], lines["steps"], findings)
  const params = readParams(data["params"], lines["params"], findings)
  for (const key of ["defaults"]) {
    if (data[key] !== undefined && data[key] !== null && !isRecord(data[key])) {
      findings.push({ check: "invalid-workflow-structure", message: "`defaults` must be a mapping of parameter name to default value", ...(lines[key] === undefined ? {} : { line: lines[key] }) })
    }
  }
  const budget = data["budget"]
  if (budget !== undefined && budget !== null && !(isRecord(budget) && Object.values(budget).every(isPositive))) {
    findings.push({ check: "invalid-workflow-structure", message: "`budget` must be a mapping of limits (steps, minutes, tokens …) to positive numbers or durations", ...(lines["budget"] === undefined ? {} : { line: lines["budget"] }) })
  }

  const bodyLines = frontmatter.body.split("\n")
  const end = frontmatter.bodyLine + bodyLines.length
  const sections = scan.headings.filter((h) => h.depth === 2)
  const declared = new Map(steps.map((step) => [headingSlug(step.id), step]))
  const sectionOf = new Map<string, number>()
  const sectionText = new Map<string, { readonly text: string; readonly gateText?: string }>()
  sections.forEach((section, index) => {
    const slug = headingSlug(section.text)
    const step = declared.get(slug)
    if (step === undefined) {
      findings.push({ check: "undeclared-step-section", message: `section '## ${section.text}' is not a declared step; add it to \`steps\` or make it a ### subsection`, line: section.line })
      return
    }
    if (sectionOf.has(slug)) {
      findings.push({ check: "invalid-workflow-structure", message: `step '${step.id}' has more than one section`, line: section.line })
      return
    }
    sectionOf.set(slug, index)
    const sectionEnd = sections[index + 1]?.line ?? end
    const inside = scan.headings.filter((h) => h.line > section.line && h.line < sectionEnd)
    const gates = inside.filter((h) => h.depth === 3 && headingSlug(h.text) === "gate")
    if (gates.length > 1) findings.push({ check: "invalid-workflow-structure", message: `step '${step.id}' has more than one ### gate`, line: gates[1]!.line })
    const textOf = (from: number, until: number) => bodyLines.slice(from + 1 - frontmatter.bodyLine, until - frontmatter.bodyLine).join("\n").trim()
    let gateText: string | undefined
    let text = textOf(section.line, sectionEnd)
    for (const gate of gates) {
      const next = inside.find((h) => h.line > gate.line && h.depth <= 3)?.line ?? sectionEnd
      if (!hasContent(bodyLines, frontmatter.bodyLine, gate.line, next)) {
        findings.push({ check: "empty-gate", message: `the gate of step '${step.id}' is empty; say what must be true (or which check command must pass) before the workflow continues`, line: gate.line })
      }
      gateText ??= textOf(gate.line, next)
      text = [textOf(section.line, gate.line), textOf(next - 1, sectionEnd)].filter((part) => part !== "").join("\n\n")
    }
    sectionText.set(slug, { text, ...(gateText === undefined ? {} : { gateText }) })
  })
  for (const step of steps) {
    if (!sectionOf.has(headingSlug(step.id))) {
      findings.push({ check: "missing-step-section", message: `step '${step.id}' has no '## ${step.id}' section`, ...(lines["steps"] === undefined ? {} : { line: lines["steps"] }) })
    }
  }
  const declaredParams = new Set(params.map((param) => param.name))
  const at = lines["steps"] === undefined ? {} : { line: lines["steps"] }
  const planSteps = steps.map((step) => readAction(step, sectionText.get(headingSlug(step.id)) ?? { text: "" }, declaredParams, at, findings))
  if (findings.length > 0 || steps.length === 0) return { steps, params, findings }
  const limits = isRecord(budget) ? budget : {}
  const maxSteps = typeof limits["steps"] === "number" && Number.isInteger(limits["steps"]) ? limits["steps"] : undefined
  const timeoutMs = limits["minutes"] !== undefined ? parseDuration(limits["minutes"], "m") : limits["time"] !== undefined ? parseDuration(limits["time"]) : undefined
  const plan: WorkflowPlan = {
    steps: planSteps.filter((step): step is PlanStep => step !== undefined),
    params: readPlanParams(data, params),
    ...(maxSteps === undefined ? {} : { maxSteps }),
    ...(timeoutMs === undefined ? {} : { timeoutMs })
  }
  return { steps, params, findings, plan }
}

/** Step and parameter words a search should match. */
export const workflowHints = (shape: WorkflowShape): ReadonlyArray<string> => [
  ...shape.steps.flatMap((step) => (step.title === undefined ? [step.id] : [step.id, step.title])),
  ...shape.params.flatMap((param) => (param.description === undefined ? [param.name] : [param.name, param.description]))
]

/** The findings as diagnostics; `codeFor` lets a host adapter fold them into its own code (akm: `invalid-workflow-structure`). */
export const workflowDiagnostics = (path: string, shape: WorkflowShape, book: RuleBook, codeFor: (check: WorkflowCheck) => string = (check) => check): ReadonlyArray<Diagnostic> =>
  shape.findings.flatMap((finding) => book.report(codeFor(finding.check), path, finding.message, { line: finding.line }))
