import type { AdapterRule } from "../../../domain/Adapter.js"

/**
 * The OKF v0.2 rule table (spec 03 "okf", OKF SPEC §3–§12). One row per
 * diagnostic code; the validators and the authoring instructions both read it
 * (R-AD-3). Consumption stays lenient (OKF §11): nothing here but a malformed
 * frontmatter block, an unusable concept path or a refused write is an error.
 */
export const okfRules: ReadonlyArray<AdapterRule> = [
  {
    code: "invalid-frontmatter",
    severity: "error",
    guidance: "Open every concept with a YAML frontmatter block between `---` lines that parses as a mapping of keys to values."
  },
  {
    code: "okf-nonconformant",
    severity: "warning",
    strictSeverity: "error",
    guidance: "Give every concept (every `.md` file other than `index.md` and `log.md`) a frontmatter block with a non-empty string `type`, e.g. `type: Reference` (OKF §11)."
  },
  {
    code: "missing-type",
    severity: "info",
    guidance: "Name the kind of concept in `type`; a concept without one is read as `knowledge`. Any descriptive value is fine (`Metric`, `Playbook`, `BigQuery Table`)."
  },
  {
    code: "reserved-name",
    severity: "error",
    guidance: "Never name a concept `index` or `log` at any depth: `index.md` is a directory listing and `log.md` an update history (OKF §3.1)."
  },
  {
    code: "invalid-concept-id",
    severity: "error",
    guidance: "Use a file path that makes a valid concept id: no `#`, no empty, `.` or `..` segments, NFC text."
  },
  {
    code: "invalid-provenance",
    severity: "warning",
    guidance: "Write provenance as OKF §5 says: every `sources` entry has a `resource`; `generated` is `{ by, at }`; `verified` is a list of (or one) `{ by, at }`; `status` is draft, stable or deprecated; timestamps are ISO 8601 with an explicit offset (`2026-06-30T14:00:00Z`)."
  },
  {
    code: "missing-runtime",
    severity: "warning",
    guidance: "Give every `type: Attested Computation` concept a `runtime` (e.g. `bigquery`, `dbt`, `python`); it defines what `parameters` mean (OKF §10.2)."
  },
  {
    code: "dangling-link",
    severity: "warning",
    guidance: "Link concepts with root-relative (`/tables/orders.md`) or relative (`../metrics/revenue.md`) markdown links to `.md` files that exist inside the bundle; a link to knowledge not written yet is tolerated."
  },
  {
    code: "invalid-index-format",
    severity: "warning",
    strictSeverity: "error",
    guidance: "Keep `index.md` a listing: sections under headings, each entry `* [Title](relative-url) - description`; no frontmatter except `okf_version` in the bundle-root `index.md` (OKF §8)."
  },
  {
    code: "invalid-log-format",
    severity: "warning",
    strictSeverity: "error",
    guidance: "Keep `log.md` a flat history: entries grouped under `## YYYY-MM-DD` headings, newest first (OKF §9)."
  },
  {
    code: "unknown-okf-version",
    severity: "info",
    guidance: "Declare the targeted version as `okf_version: \"0.2\"` in the bundle-root `index.md` frontmatter; other values are read best-effort (OKF §12)."
  }
]
