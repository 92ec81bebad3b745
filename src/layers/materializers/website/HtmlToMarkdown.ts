import type TurndownService from "turndown"
import { dedupe, resolveLink } from "./Links.js"

/**
 * One HTML page → markdown (R-WEB-6), with real libraries and never regexes
 * over HTML: linkedom parses, @mozilla/readability picks the main content
 * when the page does not mark it up, turndown writes markdown (ATX
 * headings, fenced code keeping its language, GFM tables). Site chrome
 * (navigation, sidebars, page header and footer) is dropped first; the page's
 * declared main region is used when it has one, Readability's pick when it
 * does not, the body as the last resort. The libraries are loaded on first use
 * so CLI start-up never pays for them.
 */

export interface ConvertedPage {
  readonly title: string
  /** The page as markdown, starting with an H1 title. */
  readonly markdown: string
  /** Every http(s) link on the whole page (navigation included), absolute, without fragments, deduplicated. */
  readonly links: ReadonlyArray<string>
}

/** The slice of the DOM this module touches (the project compiles without the DOM lib). */
interface DomNode {
  readonly nodeName: string
  readonly textContent: string | null
  readonly parentNode: DomNode | null
  readonly childNodes: ArrayLike<DomNode>
  readonly ownerDocument: DomDocument
}
interface DomElement extends DomNode {
  getAttribute(name: string): string | null
  setAttribute(name: string, value: string): void
  removeAttribute(name: string): void
  querySelector(selector: string): DomElement | null
  querySelectorAll(selector: string): ArrayLike<DomElement>
  closest(selector: string): DomElement | null
  remove(): void
  replaceWith(node: DomNode): void
  appendChild(node: DomNode): void
  readonly firstChild: DomNode | null
}
interface DomDocument extends DomElement {
  readonly title: string
  readonly body: DomElement | null
  readonly documentElement: DomElement
  createElement(name: string): DomElement
  cloneNode(deep: boolean): DomDocument
}

interface Libraries {
  readonly parse: (html: string) => DomDocument
  /** Readability's article from a copy of the document; null when it finds none or the page is too big for it. */
  readonly readable: (document: DomDocument) => { readonly title: string | null | undefined; readonly content: DomElement | null | undefined } | null
  readonly turndown: TurndownService
}

let libraries: Promise<Libraries> | undefined

const READABILITY_MAX_ELEMENTS = 10_000

const loadLibraries = (): Promise<Libraries> =>
  (libraries ??= Promise.all([import("linkedom"), import("@mozilla/readability"), import("turndown")]).then(([linkedom, readability, turndown]) => ({
    parse: (html) => linkedom.parseHTML(html).document as unknown as DomDocument,
    // The serializer hands back the element itself, so it is converted without a second parse.
    // Readability's own maxElemsToParse counts getElementsByTagName("*"), which is empty on linkedom:
    // the size guard is ours. A huge page without a main region falls back to its body rather than
    // spending a minute of CPU (Readability costs seconds per few thousand elements here).
    readable: (document) =>
      document.querySelectorAll("*").length > READABILITY_MAX_ELEMENTS
        ? null
        : new readability.Readability<DomElement>(document.cloneNode(true) as never, { keepClasses: true, serializer: (node) => node as unknown as DomElement }).parse(),
    turndown: makeTurndown(turndown.default)
  })))

/** Elements that are never content: dropped before extraction and again by turndown. */
const NOISE = ["script", "style", "noscript", "template", "iframe", "object", "embed", "canvas", "svg", "math", "button", "select", "input", "textarea"]

const collapse = (text: string | null | undefined): string => (text ?? "").replace(/\s+/g, " ").trim()

const each = (list: ArrayLike<DomElement>, f: (element: DomElement) => void): void => Array.from(list).forEach(f)

const languageOf = (className: string | null): string | undefined => /(?:^|\s)(?:language|lang)-([\w#+.-]+)/.exec(className ?? "")?.[1]

const codeFence = (node: DomNode): string => {
  const element = node as DomElement
  const code = element.querySelector("code")
  const language = languageOf(code?.getAttribute("class") ?? null) ?? languageOf(element.getAttribute("class")) ?? element.getAttribute("data-lang") ?? ""
  const text = (element.textContent ?? "").replace(/\n$/, "")
  // The fence must be longer than any backtick run inside the code.
  const longest = Math.max(0, ...(text.match(/`+/g) ?? []).map((run) => run.length))
  const fence = "`".repeat(Math.max(3, longest + 1))
  return `\n\n${fence}${language}\n${text}\n${fence}\n\n`
}

const tableOf = (node: DomNode): DomElement | undefined => {
  for (let at = node.parentNode; at !== null; at = at.parentNode) if (at.nodeName === "TABLE") return at as DomElement
  return undefined
}

/** A table that holds other tables (or says it is presentational) is layout, not data: its cells become plain blocks. */
const isLayout = (table: DomElement | undefined): boolean =>
  table === undefined || table.getAttribute("role") === "presentation" || table.querySelector("table") !== null

const cellsOf = (row: DomNode): number => Array.from(row.childNodes).filter((n) => n.nodeName === "TD" || n.nodeName === "TH").length

const makeTurndown = (Turndown: typeof TurndownService): TurndownService => {
  const service = new Turndown({ headingStyle: "atx", codeBlockStyle: "fenced", bulletListMarker: "-", emDelimiter: "_", hr: "---" })
  service.remove(NOISE as Array<TurndownService.TagName>)
  service.addRule("codeBlock", { filter: "pre", replacement: (_content, node) => codeFence(node as unknown as DomNode) })
  service.addRule("emptyLink", {
    // Icon-only links carry nothing a reader can use.
    filter: (node) => node.nodeName === "A" && collapse(node.textContent) === "" && node.querySelector("img") === null,
    replacement: () => ""
  })
  service.addRule("tableCell", {
    filter: ["th", "td"],
    replacement: (content, node) =>
      isLayout(tableOf(node as unknown as DomNode)) ? `\n\n${content}\n\n` : ` ${content.replace(/\s*\n+\s*/g, " ").replace(/\|/g, "\\|").trim()} |`
  })
  service.addRule("tableRow", {
    filter: "tr",
    replacement: (content, node) => {
      const table = tableOf(node as unknown as DomNode)
      if (isLayout(table)) return content
      const row = `|${content}\n`
      if (table?.querySelector("tr") !== (node as unknown)) return row
      return `${row}|${" --- |".repeat(Math.max(1, cellsOf(node as unknown as DomNode)))}\n`
    }
  })
  service.addRule("tableSection", { filter: ["thead", "tbody", "tfoot"], replacement: (content) => content })
  service.addRule("tableCaption", { filter: "caption", replacement: (content) => `${collapse(content)}\n\n` })
  service.addRule("table", { filter: "table", replacement: (content) => `\n\n${content.trim()}\n\n` })
  return service
}

/** Links and images point at absolute URLs, so the markdown reads the same wherever the snapshot lives. */
const absolutize = (document: DomDocument, base: string): Array<string> => {
  const links: Array<string> = []
  each(document.querySelectorAll("a[href], area[href]"), (a) => {
    const href = a.getAttribute("href") ?? ""
    const resolved = resolveLink(href, base)
    if (resolved !== undefined) {
      links.push(resolved)
      a.setAttribute("href", new URL(href.trim(), base).href) // the text keeps the fragment; the crawl list does not
    } else if (!href.trim().toLowerCase().startsWith("mailto:")) {
      a.removeAttribute("href") // javascript:, in-page #anchors and unparsable targets mean nothing in a snapshot
    }
  })
  each(document.querySelectorAll("img"), (img) => {
    const src = img.getAttribute("src") ?? ""
    const resolved = src.trim().toLowerCase().startsWith("data:") ? undefined : resolveLink(src, base)
    if (resolved === undefined) img.remove()
    else img.setAttribute("src", resolved)
  })
  return dedupe(links)
}

const baseOf = (document: DomDocument, pageUrl: string): string => {
  const href = document.querySelector("base[href]")?.getAttribute("href")
  if (href === undefined || href === null) return pageUrl
  return resolveLink(href, pageUrl) ?? pageUrl
}

/**
 * Site chrome: navigation, sidebars, and page headers/footers outside the
 * main region. Removed before extraction, because on a short page Readability
 * keeps the whole body, menus included. (Links were collected before.)
 */
const removeChrome = (document: DomDocument): void => {
  each(document.querySelectorAll("nav, aside, [role=navigation], [role=complementary], [role=search]"), (element) => element.remove())
  each(document.querySelectorAll("header, footer, [role=banner], [role=contentinfo]"), (element) => {
    if (element.closest("main, article, [role=main]") === null) element.remove()
  })
}

/** The main region the page declares itself: `<main>`, `role=main`, or its only `<article>`. */
const declaredMain = (document: DomDocument): DomElement | undefined => {
  const main = document.querySelector("main, [role=main]")
  if (main !== null) return main
  const articles = document.querySelectorAll("article")
  return articles.length === 1 ? articles[0] : undefined
}

/**
 * Gives the markdown exactly one leading H1: the content's first heading when
 * it opens the content and matches the title (Readability turns H1s into H2s),
 * else the title itself. Returns the title to record and whether to prepend it.
 */
const titleHeading = (root: DomElement, title: string): { readonly title: string; readonly prepend: boolean } => {
  const first = root.querySelector("h1, h2, h3, h4, h5, h6")
  const heading = collapse(first?.textContent)
  if (first === null || heading === "" || !collapse(root.textContent).startsWith(heading)) return { title, prepend: root.querySelector("h1") === null }
  if (!title.toLowerCase().startsWith(heading.toLowerCase())) return { title, prepend: root.querySelector("h1") === null }
  if (first.nodeName !== "H1") {
    const h1 = first.ownerDocument.createElement("h1")
    while (first.firstChild !== null) h1.appendChild(first.firstChild)
    first.replaceWith(h1)
  }
  return { title: heading, prepend: false }
}

/** The last path segment, decoded; the host for a site root. */
export const titleFromUrl = (pageUrl: string): string => {
  const url = new URL(pageUrl)
  const last = url.pathname.split("/").filter((s) => s !== "").pop()
  if (last === undefined) return url.host
  try {
    return decodeURIComponent(last)
  } catch {
    return last
  }
}

/** linkedom parses a fragment without <html> into a bare element; wrap it so there is a body to read. */
const parseDocument = (parse: Libraries["parse"], html: string): DomDocument => {
  const document = parse(html)
  return document.documentElement?.nodeName === "HTML" ? document : parse(`<!doctype html><html><head></head><body>${html}</body></html>`)
}

/**
 * The page's own title: its first H1 (else H2) when <title> is that heading
 * plus a site name ("Start | Example Docs"), else Readability's pick, else
 * <title>, the H1 or the URL.
 */
const pageTitle = (document: DomDocument, main: DomElement | undefined, readabilityTitle: string, pageUrl: string): string => {
  const headTitle = collapse(document.title)
  const scope = main ?? document
  const h1 = collapse(scope.querySelector("h1")?.textContent)
  const heading = h1 || collapse(scope.querySelector("h2")?.textContent)
  if (heading !== "" && headTitle.toLowerCase().includes(heading.toLowerCase())) return heading
  return readabilityTitle || headTitle || h1 || titleFromUrl(pageUrl)
}

export const htmlToMarkdown = async (html: string, pageUrl: string): Promise<ConvertedPage> => {
  const { parse, readable, turndown } = await loadLibraries()
  const document = parseDocument(parse, html)
  each(document.querySelectorAll(NOISE.join(", ")), (element) => element.remove())
  const links = absolutize(document, baseOf(document, pageUrl))
  removeChrome(document)
  // Readability only where the page does not say where its content is: on linkedom it costs
  // seconds per few hundred KiB, and a page's own <main> is the better answer anyway.
  const main = declaredMain(document)
  const article = main === undefined ? readable(document) : null
  const candidate = pageTitle(document, main, collapse(article?.title), pageUrl)
  const root = main ?? article?.content ?? document.body ?? document.documentElement
  const { title, prepend } = titleHeading(root, candidate)
  const body = turndown.turndown(root as never).trim()
  const markdown = prepend ? `# ${turndown.escape(title)}\n\n${body}` : body
  return { title, markdown: `${markdown.trim()}\n`, links }
}
