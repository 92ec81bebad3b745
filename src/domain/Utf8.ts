/**
 * The one strict UTF-8 decoder: the text of the bytes, or undefined when they
 * are not valid UTF-8. Nothing is replaced and a leading BOM is kept, so the
 * text encodes back to the same bytes (hashes and diffs stay true).
 */
const decoder = new TextDecoder("utf-8", { fatal: true, ignoreBOM: true })

export const decodeUtf8 = (bytes: Uint8Array): string | undefined => {
  try {
    return decoder.decode(bytes)
  } catch {
    return undefined
  }
}
