/**
 * URL handling for the crawler (R-WEB-4 "same origin"): how a link found on a
 * page becomes a crawl candidate, or is dropped.
 */

/** Extensions that are never pages: fetching them would only cost a request and a skip. */
const BINARY_EXTENSIONS = new Set([
  "png", "jpg", "jpeg", "gif", "webp", "avif", "svg", "ico", "bmp", "tif", "tiff",
  "pdf", "zip", "gz", "tgz", "bz2", "xz", "7z", "rar", "tar", "jar", "dmg", "exe", "msi", "deb", "rpm", "apk", "iso", "bin", "wasm",
  "mp3", "mp4", "m4a", "m4v", "mov", "avi", "mkv", "webm", "ogg", "wav", "flac",
  "woff", "woff2", "ttf", "otf", "eot",
  "css", "js", "mjs", "map", "json", "xml", "rss", "atom", "csv", "xls", "xlsx", "doc", "docx", "ppt", "pptx"
])

/**
 * An href resolved against the page's base URL, fragment dropped, in the
 * WHATWG-normalised form (lower-case host, default port removed). Undefined
 * for anything that is not http(s) (mailto:, javascript:, data:, tel: …) or
 * does not parse.
 */
export const resolveLink = (href: string, base: string): string | undefined => {
  const trimmed = href.trim()
  if (trimmed === "" || trimmed.startsWith("#")) return undefined
  let url: URL
  try {
    url = new URL(trimmed, base)
  } catch {
    return undefined
  }
  if (url.protocol !== "http:" && url.protocol !== "https:") return undefined
  if (url.username !== "" || url.password !== "") return undefined // R-WEB-1: credentials in URLs are never followed
  url.hash = ""
  return url.href
}

/** scheme + host + port, the unit of "same origin"; "null" for what does not parse. */
export const originOf = (url: string): string => {
  try {
    return new URL(url).origin
  } catch {
    return "null"
  }
}

/** A URL whose path ends in an extension that is never a page (images, archives, scripts …). */
export const looksBinary = (url: string): boolean => {
  const last = URL.canParse(url) ? new URL(url).pathname.split("/").pop() ?? "" : ""
  const dot = last.lastIndexOf(".")
  return dot > 0 && BINARY_EXTENSIONS.has(last.slice(dot + 1).toLowerCase())
}

/** Keeps the first occurrence of each string, in order. */
export const dedupe = (items: Iterable<string>): Array<string> => [...new Set(items)]
