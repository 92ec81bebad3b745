import type { AdapterRule } from "../../../domain/Adapter.js"

/**
 * The website-snapshot rule table. Snapshots are written by akm's crawler
 * (spec 02 "website"), so these findings point at a damaged or hand-edited
 * snapshot rather than at an author to guide.
 */
export const websiteSnapshotRules: ReadonlyArray<AdapterRule> = [
  {
    code: "invalid-manifest",
    severity: "error",
    guidance: "Keep a root `manifest.json` that is a JSON object with string `url` and `fetchedAt` and a `pages` list."
  },
  {
    code: "invalid-manifest-entry",
    severity: "warning",
    guidance: "Give every manifest page a bundle-relative `.md` `path` (no `..`, listed once) and its `url`."
  },
  {
    code: "missing-page",
    severity: "warning",
    guidance: "Keep every page the manifest lists on disk; refresh the snapshot to restore a lost page."
  },
  {
    code: "unlisted-page",
    severity: "info",
    guidance: "Pages come from the crawler; a markdown file the manifest does not list is indexed without its source URL."
  },
  {
    code: "content-hash-mismatch",
    severity: "warning",
    guidance: "Do not edit snapshot pages in place (their `contentHash` stops matching); export them to a writable bundle instead."
  },
  {
    code: "incomplete-snapshot",
    severity: "info",
    guidance: "A crawl that hit its limits is kept and marked `complete: false`; refresh it to fill the gaps."
  },
  {
    code: "invalid-frontmatter",
    severity: "error",
    guidance: "When a page opens with a `---` block, make it valid YAML mapping keys to values."
  },
  {
    code: "invalid-concept-id",
    severity: "error",
    guidance: "Use page paths that make valid concept ids: no `#`, no empty, `.` or `..` segments, NFC text."
  }
]
