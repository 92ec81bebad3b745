import { htmlToMarkdown, titleFromUrl, type ConvertedPage } from "./HtmlToMarkdown.js"

/**
 * What a fetched response becomes in the snapshot: HTML is converted
 * (R-WEB-6), markdown and plain text are kept as they are, anything else is
 * not a page.
 */

type PageKind = "html" | "markdown" | "text"

const KINDS: Readonly<Record<string, PageKind>> = {
  "text/html": "html",
  "application/xhtml+xml": "html",
  "text/markdown": "markdown",
  "text/x-markdown": "markdown",
  "text/plain": "text"
}

/** The media type without parameters; a missing header is taken as HTML, as browsers do for pages. */
const mediaType = (contentType: string | undefined): string => (contentType ?? "text/html").split(";")[0]!.trim().toLowerCase()

export const pageKind = (contentType: string | undefined): PageKind | undefined => KINDS[mediaType(contentType)]

/** Decodes with the header's charset when the runtime knows it, else UTF-8. */
const decode = (body: Uint8Array, contentType: string | undefined): string => {
  const charset = /;\s*charset\s*=\s*"?([^";\s]+)/i.exec(contentType ?? "")?.[1]
  try {
    return new TextDecoder(charset ?? "utf-8").decode(body)
  } catch {
    return new TextDecoder("utf-8").decode(body)
  }
}

const titleOfText = (text: string, url: string): string => {
  const heading = /^#\s+(.+?)\s*#*\s*$/m.exec(text)?.[1]
  return heading ?? titleFromUrl(url)
}

/** Converts a page body of a known kind (see `pageKind`) to markdown. */
export const toMarkdown = async (kind: PageKind, body: Uint8Array, contentType: string | undefined, url: string): Promise<ConvertedPage> => {
  const text = decode(body, contentType).replace(/^\uFEFF/, "")
  if (kind === "html") return htmlToMarkdown(text, url)
  const markdown = text.endsWith("\n") ? text : `${text}\n`
  return { title: titleOfText(text, url), markdown, links: [] }
}
