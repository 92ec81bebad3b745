import type { AdapterRule } from "../../../domain/Adapter.js"
import { LEDGER_REQUIRED_FIELDS } from "./ledgerRecord.js"

const requiredFields = Object.entries(LEDGER_REQUIRED_FIELDS).map(([kind, fields]) => `${kind}: ${fields.join(", ")}`).join("; ")

/** The project's own rows (R-AD-3); the SKILL.md rows for `skills/` are added in index.ts. */
export const projectOwnRules: ReadonlyArray<AdapterRule> = [
  {
    code: "invalid-frontmatter",
    severity: "error",
    guidance: "Write frontmatter as a YAML mapping between `---` lines; leave it out entirely rather than leave it malformed."
  },
  {
    code: "ledger-missing-field",
    severity: "error",
    guidance: `Give every ledger record a \`title\` and its kind's fields, each as a \`## Field\` section (or a frontmatter key) — ${requiredFields}.`
  },
  {
    code: "invalid-ledger-record",
    severity: "error",
    guidance: "Keep a ledger record's frontmatter consistent with its path (`kind` = its directory, `id` = its file name); `occurrences` is a list of mappings with `date`, `sources` a list."
  },
  {
    code: "invalid-rule-frontmatter",
    severity: "error",
    guidance: "In a rule's optional frontmatter use `id` (string), `introduced_by`, `supersedes` (list), `superseded_by`, `caused` (list), `scope` (list of globs), `mandates` (list of {must: bool, subject: text}) and `revisit_when` ({date} or {pathMissing})."
  },
  {
    code: "router-drift",
    severity: "warning",
    guidance: "Router files (AGENTS.md, CLAUDE.md, .cursor/rules/akm.mdc …) are generated from context/router-contract.md: edit the contract, never the text between the akm:generated markers, then run `akm routers write`."
  },
  {
    code: "map-drift",
    severity: "warning",
    guidance: "context/stack.md and context/components.md are generated from the manifests and READMEs: run `akm maps write` after changing them; write your own prose outside the akm:generated markers."
  },
  {
    code: "duplicate-concept-id",
    severity: "warning",
    guidance: "Keep one file per concept id."
  },
  {
    code: "invalid-concept-id",
    severity: "error",
    guidance: "Name knowledge files so their path is a valid ref: no `#`, no blank path segments."
  }
]
