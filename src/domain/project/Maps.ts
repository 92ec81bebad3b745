import * as TOML from "toml"

/**
 * The generated maps (spec 08 R-PRJ-4): `context/stack.md`, one row per
 * dependency from the repository's manifests, linking the ADRs and ledger
 * records that mention it; `context/components.md`, one row per top-level
 * component with its README's first line. Pure: the caller reads the files.
 */

export const STACK_PATH = "context/stack.md"
export const COMPONENTS_PATH = "context/components.md"

export interface Dependency {
  readonly name: string
  readonly version: string
  /** runtime, dev, peer, optional, build, indirect, or `optional (<group>)`. */
  readonly kind: string
  readonly manifest: string
}

export interface ManifestProblem {
  readonly path: string
  readonly line: number
  readonly message: string
}

const isRecord = (v: unknown): v is Record<string, unknown> => v !== null && typeof v === "object" && !Array.isArray(v)

const versionOf = (spec: unknown): string =>
  typeof spec === "string" ? spec : isRecord(spec) ? (typeof spec["version"] === "string" ? spec["version"] : typeof spec["git"] === "string" ? `git ${spec["git"]}` : typeof spec["path"] === "string" ? `path ${spec["path"]}` : "*") : "*"

const table = (manifest: string, kind: string, deps: unknown, skip: ReadonlyArray<string> = []): ReadonlyArray<Dependency> =>
  isRecord(deps) ? Object.entries(deps).filter(([name]) => !skip.includes(name)).map(([name, spec]) => ({ name, version: versionOf(spec), kind, manifest })) : []

/** `requests[socks]>=2.31 ; python_version > "3.8"` → name and the version part. */
const pep508 = (line: string): { readonly name: string; readonly version: string } | undefined => {
  const text = line.split(";")[0]!.split(" #")[0]!.trim()
  const match = /^([A-Za-z0-9][A-Za-z0-9._-]*)(\[[^\]]*\])?\s*(.*)$/.exec(text)
  if (match === null) return undefined
  return { name: match[1]!, version: match[3]!.trim() === "" ? "*" : match[3]!.replace(/^\(|\)$/g, "").trim() }
}

const parsePackageJson = (path: string, text: string): ReadonlyArray<Dependency> => {
  const data = JSON.parse(text) as unknown
  if (!isRecord(data)) throw new Error("the file must hold one JSON object")
  return [
    ...table(path, "runtime", data["dependencies"]),
    ...table(path, "dev", data["devDependencies"]),
    ...table(path, "peer", data["peerDependencies"]),
    ...table(path, "optional", data["optionalDependencies"])
  ]
}

const parsePyproject = (path: string, text: string): ReadonlyArray<Dependency> => {
  const data = TOML.parse(text) as Record<string, unknown>
  const out: Array<Dependency> = []
  const project = isRecord(data["project"]) ? data["project"] : {}
  const pep = (kind: string, list: unknown) => {
    if (!Array.isArray(list)) return
    for (const item of list) {
      const dep = typeof item === "string" ? pep508(item) : undefined
      if (dep !== undefined) out.push({ ...dep, kind, manifest: path })
    }
  }
  pep("runtime", project["dependencies"])
  if (isRecord(project["optional-dependencies"])) for (const [group, list] of Object.entries(project["optional-dependencies"])) pep(`optional (${group})`, list)
  const tool = isRecord(data["tool"]) ? data["tool"] : {}
  const poetry = isRecord(tool["poetry"]) ? tool["poetry"] : {}
  out.push(...table(path, "runtime", poetry["dependencies"], ["python"]), ...table(path, "dev", poetry["dev-dependencies"]))
  if (isRecord(poetry["group"])) for (const [group, spec] of Object.entries(poetry["group"])) if (isRecord(spec)) out.push(...table(path, group === "dev" ? "dev" : `optional (${group})`, spec["dependencies"]))
  if (isRecord(data["dependency-groups"])) for (const [group, list] of Object.entries(data["dependency-groups"])) pep(group === "dev" ? "dev" : `optional (${group})`, list)
  return out
}

const parseRequirements = (path: string, text: string): ReadonlyArray<Dependency> =>
  text.split(/\r?\n/).flatMap((raw) => {
    const line = raw.trim()
    if (line === "" || line.startsWith("#") || line.startsWith("-") || /^[a-z+]+:\/\//i.test(line)) return []
    const dep = pep508(line)
    return dep === undefined ? [] : [{ ...dep, kind: /dev|test/i.test(path) ? "dev" : "runtime", manifest: path }]
  })

const parseCargo = (path: string, text: string): ReadonlyArray<Dependency> => {
  const data = TOML.parse(text) as Record<string, unknown>
  return [...table(path, "runtime", data["dependencies"]), ...table(path, "dev", data["dev-dependencies"]), ...table(path, "build", data["build-dependencies"])]
}

const parseGoMod = (path: string, text: string): ReadonlyArray<Dependency> => {
  const out: Array<Dependency> = []
  let block = false
  for (const raw of text.split(/\r?\n/)) {
    const line = raw.replace(/\/\/(?! indirect).*$/, "").trim()
    if (/^require\s*\($/.test(line)) {
      block = true
      continue
    }
    if (block && line === ")") {
      block = false
      continue
    }
    const spec = block ? line : /^require\s+(.+)$/.exec(line)?.[1]
    if (spec === undefined || spec === "") continue
    const [name, version] = spec.split(/\s+/)
    if (name !== undefined && version !== undefined) out.push({ name, version, kind: spec.includes("// indirect") ? "indirect" : "runtime", manifest: path })
  }
  return out
}

/** The manifests read, by file name (repository root or any folder). */
export const isManifest = (path: string): boolean => /(^|\/)(package\.json|pyproject\.toml|Cargo\.toml|go\.mod|requirements[^/]*\.txt)$/.test(path) && !/(^|\/)node_modules\//.test(path)

/** One manifest's dependencies, or the problem that stops it (a TOML or JSON error names its line). */
export const parseManifest = (path: string, text: string): { readonly deps: ReadonlyArray<Dependency> } | { readonly problem: ManifestProblem } => {
  const name = path.replace(/^.*\//, "")
  try {
    const deps = name === "package.json" ? parsePackageJson(path, text)
      : name === "pyproject.toml" ? parsePyproject(path, text)
      : name === "Cargo.toml" ? parseCargo(path, text)
      : name === "go.mod" ? parseGoMod(path, text)
      : parseRequirements(path, text)
    return { deps }
  } catch (error) {
    const e = error as { line?: unknown; location?: { start?: { line?: unknown } }; message?: string }
    const line = typeof e.line === "number" ? e.line : typeof e.location?.start?.line === "number" ? e.location.start.line : 1
    return { problem: { path, line, message: `cannot read ${name}: ${(e.message ?? String(error)).split("\n")[0]}` } }
  }
}

const cell = (text: string): string => text.replace(/\|/g, "\\|").replace(/\s*\n\s*/g, " ")

const escapeRe = (text: string): string => text.replace(/[.*+?^${}()|[\]\\]/g, "\\$&")

/** The documents (ADRs, ledger records) that mention a dependency by name, as whole words. */
export const mentionsOf = (name: string, documents: ReadonlyArray<{ readonly path: string; readonly text: string }>): ReadonlyArray<string> => {
  const re = new RegExp(`(^|[^A-Za-z0-9_@/.-])${escapeRe(name)}($|[^A-Za-z0-9_-])`, "i")
  return documents.filter((d) => re.test(d.text)).map((d) => d.path).sort()
}

const KIND_ORDER = ["runtime", "peer", "optional", "build", "dev", "indirect"]
const kindRank = (kind: string) => {
  const i = KIND_ORDER.findIndex((k) => kind.startsWith(k))
  return i < 0 ? KIND_ORDER.length : i
}

/** The stack map's managed text: one row per dependency, sorted by manifest, kind and name. */
export const renderStack = (deps: ReadonlyArray<Dependency>, documents: ReadonlyArray<{ readonly path: string; readonly text: string }>): string => {
  const rows = [...deps].sort((a, b) => a.manifest.localeCompare(b.manifest) || kindRank(a.kind) - kindRank(b.kind) || a.kind.localeCompare(b.kind) || a.name.localeCompare(b.name))
  const link = (p: string) => `[${p}](../${p})`
  return [
    "| dependency | version | kind | manifest | mentioned in |",
    "|---|---|---|---|---|",
    ...rows.map((d) => `| \`${cell(d.name)}\` | ${cell(d.version)} | ${d.kind} | ${d.manifest} | ${mentionsOf(d.name, documents).map(link).join(", ") || "—"} |`),
    ...(rows.length === 0 ? ["| — | | | no manifest found | |"] : []),
    ""
  ].join("\n")
}

/** Folders whose children are the components (`src/api`, `packages/web`). */
const CONTAINERS = new Set(["src", "packages", "apps", "services", "libs", "lib", "crates", "modules", "cmd", "internal", "pkg", "components"])
/** Top-level folders that are knowledge or tooling, not components. */
const NOT_COMPONENTS = new Set(["docs", "rules", "context", "memory", "skills", "node_modules", "dist", "build", "target", "vendor", "test", "tests", "examples", "scripts"])

export interface Component {
  readonly path: string
  /** The README's path, when there is one. */
  readonly readme?: string
}

/** The components of a tree, from its file list: top-level folders, and the children of container folders (src/, packages/ …). */
export const componentsOf = (files: ReadonlyArray<string>): ReadonlyArray<Component> => {
  const dirs = new Set<string>()
  for (const file of files) {
    const parts = file.split("/")
    if (parts.length < 2 || parts[0]!.startsWith(".") || NOT_COMPONENTS.has(parts[0]!)) continue
    if (CONTAINERS.has(parts[0]!)) {
      if (parts.length >= 3 && !parts[1]!.startsWith(".")) dirs.add(`${parts[0]}/${parts[1]}`)
    } else dirs.add(parts[0]!)
  }
  const readmes = new Map<string, string>()
  for (const file of [...files].sort()) {
    const match = /^(.*)\/(README(?:\.md|\.markdown|\.txt|\.rst)?)$/i.exec(file)
    if (match !== null && dirs.has(match[1]!) && !readmes.has(match[1]!)) readmes.set(match[1]!, file)
  }
  return [...dirs].sort().map((path) => ({ path, ...(readmes.has(path) ? { readme: readmes.get(path)! } : {}) }))
}

/** A README's first line of text, markup trimmed. */
export const firstLine = (text: string): string => {
  for (const raw of text.replace(/^\uFEFF/, "").split(/\r?\n/)) {
    const line = raw.replace(/^#+\s*/, "").replace(/^[=-]+$/, "").trim()
    if (line !== "" && !line.startsWith("<!--") && !line.startsWith("---")) return line
  }
  return ""
}

/** The component map's managed text. */
export const renderComponents = (components: ReadonlyArray<Component & { readonly summary?: string }>): string =>
  [
    "| component | what it is | readme |",
    "|---|---|---|",
    ...components.map((c) => `| \`${cell(c.path)}\` | ${cell(c.summary ?? "") || "—"} | ${c.readme === undefined ? "—" : `[${c.readme}](../${c.readme})`} |`),
    ...(components.length === 0 ? ["| — | no component folder found | |"] : []),
    ""
  ].join("\n")

export const STACK_INTRO = "# Dependency map\n\nWhat this repository depends on, from its manifests, with the decisions and ledger records that mention each dependency. Generated by `akm maps write`; text outside the akm:generated markers is kept.\n\n"
export const COMPONENTS_INTRO = "# Component map\n\nThe repository's top-level components, each with its README's first line. Generated by `akm maps write`; text outside the akm:generated markers is kept.\n\n"

/** The rows that differ between two tables, by their first cell (for naming what drifted). */
export const driftedRows = (actual: string, expected: string): ReadonlyArray<string> => {
  const rows = (t: string) => new Set(t.split("\n").filter((l) => l.startsWith("| ") && !l.startsWith("|---")))
  const a = rows(actual)
  const e = rows(expected)
  const first = (l: string) => l.split(" | ")[0]!.replace(/^\|\s*/, "").replace(/`/g, "").trim()
  return [...new Set([...[...e].filter((l) => !a.has(l)), ...[...a].filter((l) => !e.has(l))].map(first))].sort()
}
