import type { Diagnostic } from "../../../domain/Diagnostic.js"
import { headingSlug } from "../../../domain/Ref.js"
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
export type WorkflowCheck = "invalid-workflow-structure" | "missing-step-section" | "undeclared-step-section" | "untyped-param" | "empty-gate"

export interface WorkflowFinding {
  readonly check: WorkflowCheck
  readonly message: string
  readonly line?: number
}

export interface WorkflowStep {
  readonly id: string
  readonly title?: string
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
    steps.push({ id, ...(title === undefined ? {} : { title }) })
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
    for (const gate of gates) {
      const next = inside.find((h) => h.line > gate.line && h.depth <= 3)?.line ?? sectionEnd
      if (!hasContent(bodyLines, frontmatter.bodyLine, gate.line, next)) {
        findings.push({ check: "empty-gate", message: `the gate of step '${step.id}' is empty; say what must be true (or which check command must pass) before the workflow continues`, line: gate.line })
      }
    }
  })
  for (const step of steps) {
    if (!sectionOf.has(headingSlug(step.id))) {
      findings.push({ check: "missing-step-section", message: `step '${step.id}' has no '## ${step.id}' section`, ...(lines["steps"] === undefined ? {} : { line: lines["steps"] }) })
    }
  }
  return { steps, params, findings }
}

/** Step and parameter words a search should match. */
export const workflowHints = (shape: WorkflowShape): ReadonlyArray<string> => [
  ...shape.steps.flatMap((step) => (step.title === undefined ? [step.id] : [step.id, step.title])),
  ...shape.params.flatMap((param) => (param.description === undefined ? [param.name] : [param.name, param.description]))
]

/** The findings as diagnostics; `codeFor` lets a host adapter fold them into its own code (akm: `invalid-workflow-structure`). */
export const workflowDiagnostics = (path: string, shape: WorkflowShape, book: RuleBook, codeFor: (check: WorkflowCheck) => string = (check) => check): ReadonlyArray<Diagnostic> =>
  shape.findings.flatMap((finding) => book.report(codeFor(finding.check), path, finding.message, { line: finding.line }))
