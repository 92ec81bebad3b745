import type { AdapterRule } from "../../../domain/Adapter.js"
import { PARAM_TYPES } from "./workflowDocument.js"

/** The akm-workflow rule table (R-AD-3): validation and authoring guidance both read it. */
export const akmWorkflowRules: ReadonlyArray<AdapterRule> = [
  {
    code: "invalid-frontmatter",
    severity: "error",
    guidance: "Open the file with a YAML frontmatter block (`---` … `---`) that parses as a mapping."
  },
  {
    code: "invalid-workflow-structure",
    severity: "error",
    guidance: "Declare `type: workflow` and a non-empty `steps` list of unique ids (strings, or mappings with `id` and an optional `title`); `params` and `defaults` are mappings, `budget` maps limits to positive numbers or durations; one section and at most one `### gate` per step."
  },
  {
    code: "missing-step-section",
    severity: "error",
    guidance: "Write one `## <step-id>` section for every declared step, in the body, saying what the step does."
  },
  {
    code: "undeclared-step-section",
    severity: "error",
    guidance: "Use `##` headings only for declared steps; other headings are `###` or deeper, or the `# Title`."
  },
  {
    code: "untyped-param",
    severity: "error",
    guidance: `Give every param a type (\`name: string\` or \`name: {type: …, description: …, default: …}\`), one of ${PARAM_TYPES.join(", ")}; an enum lists its \`values\`.`
  },
  {
    code: "empty-gate",
    severity: "error",
    guidance: "Under a step's `### gate`, state what must be true (or which check command must pass) before the workflow continues; remove the heading if the step has no gate."
  },
  {
    code: "invalid-step",
    severity: "error",
    guidance: "Give a runnable step exactly one of `command` (an argv list such as [npm, test]; one string only with `shell: true`; optional `cwd`, `timeout`, `retries`) or `prompt` (instructions for the agent); `kind` is command, prompt or gate; `gate: {check: [argv…]}` passes when the check exits 0."
  },
  {
    code: "unknown-param",
    severity: "error",
    guidance: "Use `{{name}}` only for params the workflow declares under `params`; they are substituted into argv elements (and into a shell string only with `shell: true`)."
  },
  {
    code: "missing-description",
    severity: "warning",
    guidance: "Give every workflow a one-sentence `description` saying what it achieves and when to run it."
  },
  {
    code: "invalid-concept-id",
    severity: "error",
    guidance: "Name files so their bundle path is a valid ref: no `#`, no blank path segments."
  }
]
