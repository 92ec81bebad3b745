import type { AdapterRule } from "../../../domain/Adapter.js"

/**
 * The generic-files rule table. The adapter is read-only and imposes no
 * format, so it only reports what stops a file from becoming a usable item.
 */
export const genericFilesRules: ReadonlyArray<AdapterRule> = [
  {
    code: "invalid-frontmatter",
    severity: "error",
    guidance: "When a markdown file opens with a `---` block, make it valid YAML mapping keys to values."
  },
  {
    code: "invalid-concept-id",
    severity: "error",
    guidance: "Use file paths that make valid concept ids: no `#`, no empty, `.` or `..` segments, NFC text."
  },
  {
    code: "duplicate-concept-id",
    severity: "error",
    guidance: "Do not keep `name.md` beside an extension-less `name` in one folder: both map to the concept id `name` (the markdown file wins)."
  }
]
