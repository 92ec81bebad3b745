import { secretKindOfName } from "../../../domain/SecretFiles.js"

/**
 * What a file is to generic-files, from its name alone (plan sees paths only):
 * markdown and text are documents, known script extensions are scripts, the
 * rest are opaque files; files named like credentials are secrets, listed by
 * name and never read.
 */

export type FileKind = "markdown" | "text" | "script" | "file" | "secret"

const MARKDOWN = new Set(["md", "markdown", "mdx"])
const TEXT = new Set(["txt", "text", "rst", "adoc", "asciidoc", "org"])
const SCRIPT = new Set([
  "sh", "bash", "zsh", "fish", "ksh",
  "py", "rb", "pl", "pm", "php", "lua", "tcl", "r",
  "js", "mjs", "cjs", "ts", "mts", "cts",
  "ps1", "psm1", "bat", "cmd", "awk"
])

export const extensionOf = (path: string): string => {
  const name = path.slice(path.lastIndexOf("/") + 1)
  const dot = name.lastIndexOf(".")
  return dot <= 0 ? "" : name.slice(dot + 1).toLowerCase()
}

export const kindOf = (path: string): FileKind => {
  // Credentials and env files by name (`.env`, `*.pem`, `id_rsa`, …) come first: a `secrets.md` is not a document.
  if (secretKindOfName(path) !== undefined) return "secret"
  const extension = extensionOf(path)
  if (MARKDOWN.has(extension)) return "markdown"
  if (TEXT.has(extension)) return "text"
  if (SCRIPT.has(extension)) return "script"
  return "file"
}

/** Concept id: the path, without `.md` for markdown (spec 03 "generic-files"); every other extension is kept. */
export const conceptIdOf = (path: string): string => (path.endsWith(".md") ? path.slice(0, -3) : path)
