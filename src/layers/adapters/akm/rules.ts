import type { AdapterRule } from "../../../domain/Adapter.js"
import { BELIEF_STATES, QUALITIES } from "./types.js"

/**
 * akm's own rows (R-AD-3). The SKILL.md rows for `skills/<name>/` come from
 * the shared codec's table and are joined in index.ts. Workflow and task
 * checks run the akm-workflow and akm-task modules and report under one code
 * each, as spec 03 names them.
 */
export const akmOwnRules: ReadonlyArray<AdapterRule> = [
  {
    code: "invalid-frontmatter",
    severity: "error",
    guidance: "Write frontmatter as a YAML mapping between `---` lines."
  },
  {
    code: "missing-description",
    severity: "warning",
    guidance: "Give every item a one-sentence `description` (scripts: a `# @description …` comment at the top) saying what it is and when it helps."
  },
  {
    code: "placeholder-stub",
    severity: "warning",
    guidance: "Do not save stubs: write the content, not only headings and TODO/TBD/FIXME lines."
  },
  {
    code: "invalid-field-value",
    severity: "warning",
    guidance: `Use known values: \`quality\` is one of ${QUALITIES.join(", ")}; \`beliefState\` one of ${BELIEF_STATES.join(", ")}; \`observed_at\` and \`expires\` are ISO dates.`
  },
  {
    code: "broken-ref",
    severity: "warning",
    guidance: "Point `xrefs` and `supersededBy` at items that exist: `<dir>/<name>`, a short `<type>/<name>` (memory/foo = memories/foo), or `bundle//id` for another bundle."
  },
  {
    code: "dangling-link",
    severity: "warning",
    guidance: "Link only files that exist in the bundle, by a path relative to the linking file."
  },
  {
    code: "missing-skill-md",
    severity: "warning",
    strictSeverity: "error",
    guidance: "Give every directory under skills/ a SKILL.md; a directory without one is not a skill."
  },
  {
    code: "invalid-workflow-structure",
    severity: "error",
    guidance: "In workflows/, declare `steps` (unique ids) and typed `params` in frontmatter, write one `## <step-id>` section per declared step and no other `##` sections, and never leave a `### gate` empty."
  },
  {
    code: "invalid-task-yaml",
    severity: "error",
    guidance: "In tasks/, write YAML with `version: 2`, a valid `schedule` (5 cron fields or @daily-style), exactly one of `workflow`/`prompt`/`command`, and optional `params` (mapping), `timeout`, `env` (key names only) and `enabled` (boolean)."
  },
  {
    code: "dangerous-env-key",
    severity: "warning",
    guidance: "Do not define or request loader, shell-startup or tool-hook variables (PATH, LD_*, DYLD_*, NODE_OPTIONS, PYTHONPATH, GIT_SSH_COMMAND, EDITOR, BASH_FUNC_* …): `akm env run` refuses them for bundles from git, npm or website sources."
  },
  {
    code: "invalid-env-line",
    severity: "warning",
    guidance: "In env/*.env write one `KEY=value` per line, start comments with `#`, close every quoted value; mark descriptions meant for the index with `# akm:public`."
  },
  {
    code: "duplicate-env-key",
    severity: "warning",
    guidance: "Assign each env key once per file."
  },
  {
    code: "duplicate-concept-id",
    severity: "warning",
    guidance: "Keep one file per concept id (`tasks/x.yml` and `tasks/x.yaml` collide)."
  },
  {
    code: "invalid-concept-id",
    severity: "error",
    guidance: "Name files so their bundle path is a valid ref: no `#`, no blank path segments."
  }
]
