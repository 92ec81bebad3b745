import type { AdapterRule } from "../../../domain/Adapter.js"

/** The llm-wiki rule table (R-AD-3): validation and authoring guidance both read it. */
export const llmWikiRules: ReadonlyArray<AdapterRule> = [
  {
    code: "invalid-frontmatter",
    severity: "error",
    guidance: "Open pages with a YAML frontmatter block (`---` … `---`) that parses as a mapping."
  },
  {
    code: "missing-description",
    severity: "warning",
    guidance: "Give every page a one-sentence `description` of what it covers."
  },
  {
    code: "broken-source",
    severity: "error",
    guidance: "Cite only raw sources that exist: every `sources:` entry names a file under `raw/` (or a URL)."
  },
  {
    code: "broken-xref",
    severity: "warning",
    guidance: "Link only pages that exist: `xrefs:` entries, `[[wikilinks]]` and relative markdown links must resolve to a file of the wiki."
  },
  {
    code: "uncited-raw",
    severity: "info",
    guidance: "Cite every raw source from at least one page's `sources:`; an uncited source has not been digested into the wiki yet."
  },
  {
    code: "invalid-concept-id",
    severity: "error",
    guidance: "Name files so their bundle path is a valid ref: no `#`, no blank path segments."
  }
]
