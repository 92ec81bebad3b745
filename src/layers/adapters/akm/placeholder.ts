/**
 * A placeholder stub (spec 03 "akm"): a body with TODO/TBD/FIXME markers and
 * nothing else but headings, so a search hit would lead nowhere.
 */
const MARKER = /^\s*(?:[-*+]\s+|\d+[.)]\s+)?(?:\[\s?\]\s*)?(?:<!--\s*)?(?:TODO|TBD|FIXME|XXX|coming soon|placeholder)\b/i
const HEADING = /^\s{0,3}#{1,6}(?:\s|$)/

export const isPlaceholderBody = (body: string): boolean => {
  let markers = 0
  for (const line of body.split("\n")) {
    if (line.trim() === "" || HEADING.test(line) || /^\s*(?:-->|\.\.\.|…)\s*$/.test(line)) continue
    if (!MARKER.test(line)) return false
    markers++
  }
  return markers > 0
}
