import type { AdapterRule } from "../../../domain/Adapter.js"

/** The akm-task rule table (R-AD-3): validation and authoring guidance both read it. */
export const akmTaskRules: ReadonlyArray<AdapterRule> = [
  {
    code: "invalid-task-yaml",
    severity: "error",
    guidance: "Write a YAML mapping with `version: 2`, a `schedule`, exactly one of `workflow` (a ref), `prompt` (text) or `command` (a string or an argv list); optional `params` (a mapping), `timeout` (seconds or 30s/5m/1h30m), `env` (a list of key names, never values) and `enabled` (true/false, advisory)."
  },
  {
    code: "invalid-schedule",
    severity: "error",
    guidance: "Give `schedule` as five cron fields (minute hour day-of-month month day-of-week, e.g. `0 6 * * 1-5`) or a macro: @yearly, @monthly, @weekly, @daily, @hourly, @reboot."
  },
  {
    code: "dangerous-env-key",
    severity: "warning",
    guidance: "Do not request loader, shell-startup or tool-hook variables in `env` (PATH, LD_*, NODE_OPTIONS, PYTHONPATH, GIT_SSH_COMMAND …); `akm env run` refuses them for bundles from git, npm or website sources."
  },
  {
    code: "duplicate-concept-id",
    severity: "warning",
    guidance: "Keep one file per task name: `<name>.yml` and `<name>.yaml` are the same item; the `.yml` one is indexed."
  },
  {
    code: "invalid-concept-id",
    severity: "error",
    guidance: "Name files so their bundle path is a valid ref: no `#`, no blank path segments."
  }
]
