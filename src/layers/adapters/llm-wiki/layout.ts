/**
 * The wiki's layout (spec 03 "llm-wiki"): `schema.md` holds the wiki's own
 * conventions, `pages/` the maintained pages, `raw/` the immutable sources;
 * `index.md` and `log.md` are reserved at every level.
 */
export const SCHEMA_FILE = "schema.md"
export const PAGES_DIR = "pages/"
export const RAW_DIR = "raw/"

export type WikiKind = "schema" | "page" | "raw" | "note"

export const isReservedName = (path: string): boolean => {
  const base = path.split("/").pop()!.toLowerCase()
  return base === "index.md" || base === "log.md"
}

export const kindOf = (path: string): WikiKind =>
  path === SCHEMA_FILE ? "schema" : path.startsWith(PAGES_DIR) ? "page" : path.startsWith(RAW_DIR) ? "raw" : "note"
