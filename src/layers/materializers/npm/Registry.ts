import type { SafeFetch } from "../../http/SafeHttp.js"
import { httpGet } from "./HttpGet.js"
import { NpmProblem } from "./NpmProblem.js"
import clean from "semver/functions/clean.js"
import rcompare from "semver/functions/rcompare.js"
import satisfies from "semver/functions/satisfies.js"
import valid from "semver/functions/valid.js"
import maxSatisfying from "semver/ranges/max-satisfying.js"
import validRange from "semver/ranges/valid.js"

/**
 * The registry side of an npm: source: which registry, the packument (the
 * package document listing versions and dist-tags), and which version a
 * spec resolves to — the equivalent of `npm view <pkg>@<spec>`.
 */

export const DEFAULT_REGISTRY = "https://registry.npmjs.org"

/** The source's own registry, else config npm.registry, else the public registry. */
export const registryBase = (sourceRegistry: string | undefined, configRegistry: string | undefined): string =>
  (sourceRegistry ?? configRegistry ?? DEFAULT_REGISTRY).replace(/\/+$/, "")

// npm's rules for new names, loosened to allow the upper case of old packages; nothing that could leave the URL path.
const NAME = /^(?:@[a-z0-9-~][a-z0-9-._~]*\/)?[a-z0-9-~][a-z0-9-._~]*$/i

export const checkPackageName = (name: string): void => {
  if (!NAME.test(name) || name.length > 214) {
    throw new NpmProblem({ reason: `'${name}' is not a valid npm package name`, hint: "npm sources look like npm:name or npm:@scope/name@^2" })
  }
}

/** `/@scope%2fname` for scoped packages, as the registry API expects. */
export const packumentUrl = (base: string, name: string): string => `${base}/${name.replace("/", "%2f")}`

export interface VersionManifest {
  readonly version: string
  readonly tarball: string
  readonly integrity?: string | undefined
  readonly shasum?: string | undefined
}

export interface Packument {
  readonly name: string
  readonly distTags: Readonly<Record<string, string>>
  readonly versions: Readonly<Record<string, VersionManifest>>
}

const isRecord = (value: unknown): value is Record<string, unknown> => typeof value === "object" && value !== null && !Array.isArray(value)

/** Keeps only what resolution needs; a malformed version entry is dropped, a malformed document refused. */
export const parsePackument = (name: string, json: unknown, url: string): Packument => {
  if (!isRecord(json) || !isRecord(json.versions)) {
    throw new NpmProblem({ reason: `the registry answer at ${url} is not an npm package document`, hint: "check that the registry URL points at an npm registry" })
  }
  const versions: Record<string, VersionManifest> = {}
  for (const [version, manifest] of Object.entries(json.versions)) {
    if (!isRecord(manifest) || !isRecord(manifest.dist) || typeof manifest.dist.tarball !== "string") continue
    const { tarball, integrity, shasum } = manifest.dist
    let resolved: string
    try {
      resolved = new URL(tarball, url).href // absolute as npm writes it; a relative one is read against the document's URL
    } catch {
      continue
    }
    versions[version] = {
      version,
      tarball: resolved,
      integrity: typeof integrity === "string" ? integrity : undefined,
      shasum: typeof shasum === "string" ? shasum : undefined
    }
  }
  const distTags: Record<string, string> = {}
  if (isRecord(json["dist-tags"])) {
    for (const [tag, version] of Object.entries(json["dist-tags"])) if (typeof version === "string") distTags[tag] = version
  }
  return { name, distTags, versions }
}

export interface FetchPackumentOptions {
  readonly maxBytes: number
  readonly timeoutMs: number
  readonly signal?: AbortSignal | undefined
}

export const fetchPackument = async (client: SafeFetch, base: string, name: string, options: FetchPackumentOptions): Promise<Packument> => {
  checkPackageName(name)
  const url = packumentUrl(base, name)
  const what = `the package document of ${name}`
  // The abbreviated ("corgi") document is much smaller; registries that do not know it send the full one.
  const response = await httpGet(client, url, { accept: "application/vnd.npm.install-v1+json; q=1.0, application/json; q=0.8, */*", what, ...options })
  if (response.status === 404) {
    throw new NpmProblem({ reason: `package ${name} was not found at ${base} (HTTP 404)`, hint: "check the package name and the registry (config npm.registry)" })
  }
  if (response.status === 401 || response.status === 403) {
    throw new NpmProblem({ reason: `${base} refused access to ${name} (HTTP ${response.status})`, hint: "akm sends no registry credentials; private packages are not supported yet" })
  }
  if (response.status !== 200) {
    throw new NpmProblem({ reason: `GET ${url} answered HTTP ${response.status}`, hint: "the registry may be down; retry later" })
  }
  let json: unknown
  try {
    json = JSON.parse(response.body.toString("utf8"))
  } catch {
    throw new NpmProblem({ reason: `the registry answer at ${url} is not JSON`, hint: "check that the registry URL points at an npm registry" })
  }
  return parsePackument(name, json, url)
}

/** Versions newest first; names that are not semver versions are left out. */
const sortDescending = (versions: ReadonlyArray<string>): ReadonlyArray<string> =>
  versions.filter((version) => valid(version) !== null).sort(rcompare)

const newest = (packument: Packument, count: number): string => {
  const list = sortDescending(Object.keys(packument.versions)).slice(0, count)
  const tags = Object.entries(packument.distTags).map(([tag, version]) => `${tag} → ${version}`)
  return `${list.length === 0 ? "it has no versions" : `newest versions: ${list.join(", ")}`}${tags.length === 0 ? "" : `; dist-tags: ${tags.join(", ")}`}`
}

/**
 * Resolves a spec against the packument: no spec → the `latest` dist-tag; an
 * exact version; a dist-tag; else a semver range → like npm, `latest` when it
 * satisfies the range, else the highest version that does. Ranges mean what
 * they mean to npm (node-semver, without includePrerelease): a prerelease
 * matches only a range that names a prerelease of the same major.minor.patch.
 */
export const resolveVersion = (packument: Packument, spec: string | undefined): VersionManifest => {
  const wanted = spec === undefined || spec.trim() === "" ? "latest" : spec.trim()
  const found = (version: string | undefined): VersionManifest | undefined => (version === undefined ? undefined : packument.versions[version])
  const exact = found(wanted) ?? found(clean(wanted) ?? undefined) // `v1.2.3`, `=1.2.3` name 1.2.3
  if (exact !== undefined) return exact
  const tagged = packument.distTags[wanted]
  if (tagged !== undefined) {
    const manifest = found(tagged)
    if (manifest !== undefined) return manifest
    throw new NpmProblem({ reason: `dist-tag '${wanted}' of ${packument.name} points at ${tagged}, which the registry does not list`, hint: newest(packument, 5) })
  }
  const range = validRange(wanted)
  if (range === null) {
    throw new NpmProblem({
      reason: `'${wanted}' is not a version, a semver range or a dist-tag of ${packument.name}`,
      hint: `use npm:${packument.name}@<version|range|tag>; ${newest(packument, 5)}`
    })
  }
  const latest = packument.distTags.latest
  if (latest !== undefined && found(latest) !== undefined && satisfies(latest, range)) return found(latest)!
  const best = found(maxSatisfying(Object.keys(packument.versions), range) ?? undefined)
  if (best !== undefined) return best
  throw new NpmProblem({ reason: `no version of ${packument.name} matches ${wanted}`, hint: newest(packument, 5) })
}
