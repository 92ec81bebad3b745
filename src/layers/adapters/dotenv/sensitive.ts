/**
 * `<name>.sensitive` markers (spec 03 "dotenv"): a marker hides the item it
 * names from the index and from listings. `env/prod.sensitive` and
 * `env/prod.env.sensitive` both hide `env/prod.env`; the markers themselves
 * are never items.
 */
export const MARKER_SUFFIX = ".sensitive"

export const isSensitiveMarker = (path: string): boolean => path.endsWith(MARKER_SUFFIX)

const withoutExtension = (path: string): string => path.replace(/(?<=[^/])\.[^./]+$/, "")

/** The paths that are markers or hidden by one. */
export const hiddenBySensitiveMarkers = (paths: ReadonlyArray<string>): ReadonlySet<string> => {
  const named = new Set(paths.filter(isSensitiveMarker).map((marker) => marker.slice(0, -MARKER_SUFFIX.length)))
  const hidden = new Set<string>()
  for (const path of paths) {
    if (isSensitiveMarker(path) || named.has(path) || named.has(withoutExtension(path))) hidden.add(path)
  }
  return hidden
}
