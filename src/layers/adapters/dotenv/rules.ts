import type { AdapterRule } from "../../../domain/Adapter.js"

/** The dotenv rule table (R-AD-3): validation and authoring guidance both read it. */
export const dotenvRules: ReadonlyArray<AdapterRule> = [
  {
    code: "dangerous-env-key",
    severity: "warning",
    guidance: "Do not define loader, shell-startup or tool-hook variables (PATH, LD_*, DYLD_*, NODE_OPTIONS, PYTHONPATH, GIT_SSH_COMMAND, EDITOR, BASH_FUNC_* …): `akm env run` refuses them for bundles from git, npm or website sources."
  },
  {
    code: "invalid-env-line",
    severity: "warning",
    guidance: "Write one `KEY=value` (or `export KEY=value`) per line, start comments with `#`, and close every quoted value; other lines are ignored by dotenv loaders."
  },
  {
    code: "duplicate-env-key",
    severity: "warning",
    guidance: "Assign each key once per file: loaders keep only one of the assignments."
  },
  {
    code: "duplicate-concept-id",
    severity: "warning",
    guidance: "Keep one file per name: `env/<name>` and `env/<name>.env` are the same item."
  },
  {
    code: "invalid-concept-id",
    severity: "error",
    guidance: "Name files so their bundle path is a valid ref: no `#`, no blank path segments."
  }
]
