import { Either } from "effect"
import type { BundleSource } from "./Config.js"
import { UsageError } from "./Errors.js"
import { suggestBundleName } from "./Ref.js"
import { shellCommand } from "./ShellQuote.js"

export interface SourceOptions {
  /** Treat an https URL as a website to crawl rather than a git repository. */
  readonly website?: boolean | undefined
  /** Materialize a pinned copy of a local git checkout instead of using it in place. */
  readonly git?: boolean | undefined
  readonly ref?: string | undefined
  /** Allow a website or a git repository over plain http (R-WEB-1); refused for every other kind. */
  readonly allowInsecure?: boolean | undefined
}

const isItemRef = (input: string): boolean => /^[^\s:.#/\\]+\/\/[^/]/.test(input) && !input.includes("://")

/**
 * Parses an install source (spec 02 §1): a local path, `file://`, an https git
 * URL, `github:owner/repo[#ref]`, `npm:` spec or a website. Item refs are a
 * separate grammar and are refused here with a pointer to the right command.
 */
export const parseSource = (input: string, options: SourceOptions = {}): Either.Either<BundleSource, UsageError> =>
  Either.flatMap(parseKind(input, options), (source) => checkFlags(input.trim(), source, options))

/** The flags that only make sense for one kind are refused elsewhere, so a typo never silently changes what is installed. */
const checkFlags = (text: string, source: BundleSource, options: SourceOptions): Either.Either<BundleSource, UsageError> => {
  if (options.git === true && options.website === true) {
    return Either.left(new UsageError({ message: "--git and --website contradict each other", hint: "give one of them: --git pins a copy of a git repository, --website crawls a site" }))
  }
  if (options.git === true && source.kind !== "git") {
    return Either.left(new UsageError({ message: `--git applies to git repositories, and '${text}' is a ${source.kind} source`, hint: "drop --git" }))
  }
  if (options.website === true && source.kind !== "website") {
    return Either.left(new UsageError({ message: `--website needs an http(s) URL, not '${text}'`, hint: "e.g. akm bundle add --website https://docs.example.com/" }))
  }
  if (options.ref !== undefined && source.kind !== "git") {
    return Either.left(new UsageError({
      message: `--ref applies to git sources, and '${text}' is a ${source.kind} source`,
      hint: source.kind === "filesystem" ? "add --git to pin a copy of a local checkout at that ref" : "drop --ref"
    }))
  }
  if (options.allowInsecure === true && source.kind !== "website" && !(source.kind === "git" && /^http:\/\//i.test(source.url))) {
    return Either.left(new UsageError({
      message: source.kind === "git" ? "--allow-insecure applies to plain http:// URLs only" : "--allow-insecure applies to websites and git repositories over plain http:// only",
      hint: "drop --allow-insecure, or add --website for a site served over plain http"
    }))
  }
  if (source.kind === "git") {
    // R-WEB-1 for git as for websites: over plain http anyone in between could change what gets installed.
    if (/^http:\/\//i.test(source.url) && options.allowInsecure !== true) {
      return Either.left(new UsageError({ message: `${source.url} is plain http`, hint: "use the repository's https:// URL, or pass --allow-insecure if you trust the network between you and the server" }))
    }
    return Either.right(options.allowInsecure === true ? { ...source, allowInsecure: true } : source)
  }
  if (source.kind !== "website") return Either.right(source)
  if (!/^https?:\/\//i.test(source.url)) {
    return Either.left(new UsageError({ message: `a website source needs an http(s) URL, not '${source.url}'`, hint: "e.g. akm bundle add --website https://docs.example.com/" }))
  }
  const url = parseUrl(source.url)
  if (url === undefined) return Either.left(new UsageError({ message: `'${source.url}' is not a valid URL`, hint: "e.g. akm bundle add --website https://docs.example.com/" }))
  if (url.username !== "" || url.password !== "") {
    return Either.left(new UsageError({ message: "website URLs with credentials are refused", hint: "remove the user:password@ part; akm never sends credentials to a crawled site" }))
  }
  if (url.protocol === "http:" && options.allowInsecure !== true) {
    return Either.left(new UsageError({ message: `${source.url} is plain http`, hint: "use https://, or pass --allow-insecure if you trust the network between you and the site" }))
  }
  return Either.right(options.allowInsecure === true ? { ...source, allowInsecure: true } : source)
}

const parseUrl = (text: string): URL | undefined => {
  try {
    return new URL(text)
  } catch {
    return undefined
  }
}

const parseKind = (input: string, options: SourceOptions): Either.Either<BundleSource, UsageError> => {
  const text = input.trim()
  if (text === "") return Either.left(new UsageError({ message: "the bundle source is empty", hint: "give a folder, a git URL, an npm: spec or a website URL" }))
  if (isItemRef(text)) {
    return Either.left(new UsageError({
      message: `'${text}' is an item ref, not a bundle source`,
      hint: `use \`${shellCommand("akm show", text)}\` to read an item; \`akm bundle add\` takes a folder, git URL, npm: spec or website`
    }))
  }
  if (text.startsWith("git@") || text.startsWith("ssh://")) {
    return Either.left(new UsageError({ message: `ssh git URLs are not supported: ${text}`, hint: "use the repository's https:// URL instead" }))
  }
  if (text.startsWith("npm:")) {
    const spec = text.slice(4)
    const at = spec.lastIndexOf("@")
    const hasVersion = at > 0
    const pkg = hasVersion ? spec.slice(0, at) : spec
    if (pkg === "") return Either.left(new UsageError({ message: `'${text}' names no package`, hint: "npm sources look like npm:@scope/name@^2" }))
    return Either.right(hasVersion ? { kind: "npm", package: pkg, version: spec.slice(at + 1) } : { kind: "npm", package: pkg })
  }
  if (text.startsWith("github:")) {
    const [repo, ref] = text.slice(7).split("#", 2)
    if (repo === undefined || !/^[\w.-]+\/[\w.-]+$/.test(repo)) {
      return Either.left(new UsageError({ message: `'${text}' is not owner/repo`, hint: "github sources look like github:owner/repo#main" }))
    }
    const url = `https://github.com/${repo}.git`
    const gitRef = options.ref ?? ref
    return Either.right(gitRef === undefined ? { kind: "git", url } : { kind: "git", url, ref: gitRef })
  }
  if (text.startsWith("website:")) return Either.right({ kind: "website", url: text.slice(8) })
  if (text.startsWith("file://")) {
    return Either.right(options.ref === undefined ? { kind: "git", url: text } : { kind: "git", url: text, ref: options.ref })
  }
  if (/^https?:\/\//.test(text)) {
    if (options.website === true) return Either.right({ kind: "website", url: text })
    if (/^https?:\/\/[^/?#]*@/i.test(text)) {
      // A token in the URL would be written to config.yaml and akm.lock in clear text.
      return Either.left(new UsageError({ message: "git URLs with credentials are not accepted", hint: "use the repository's URL without user:token@; akm reads public repositories over https" }))
    }
    return Either.right(options.ref === undefined ? { kind: "git", url: text } : { kind: "git", url: text, ref: options.ref })
  }
  if (/^[a-z][a-z0-9+.-]*:\/\//i.test(text)) {
    return Either.left(new UsageError({ message: `unsupported source scheme in '${text}'`, hint: "use a folder path, https://, file://, github:, npm: or website:" }))
  }
  if (options.git === true) {
    return Either.right(options.ref === undefined ? { kind: "git", url: text } : { kind: "git", url: text, ref: options.ref })
  }
  return Either.right({ kind: "filesystem", path: text })
}

/** A human locator for a source (lock, listings). */
export const sourceLocator = (source: BundleSource): string => {
  switch (source.kind) {
    case "filesystem":
      return source.path
    case "git":
      return source.ref === undefined ? source.url : `${source.url}#${source.ref}`
    case "npm":
      return source.version === undefined ? `npm:${source.package}` : `npm:${source.package}@${source.version}`
    case "website":
      return source.url
  }
}

/** A default bundle name from a source: the folder, repository or package name, made valid. */
export const defaultBundleName = (source: BundleSource): string => {
  const raw =
    source.kind === "filesystem" ? source.path.replace(/[\\/]+$/, "").split(/[\\/]/).pop() ?? ""
    : source.kind === "git" ? (source.url.replace(/\/+$/, "").split("/").pop() ?? "").replace(/\.git$/, "")
    : source.kind === "npm" ? source.package.split("/").pop() ?? ""
    : new URL(source.url, "https://invalid.example").hostname
  // A new name follows spec 01 §5 (lowercase ASCII, `-`, `_`), so a default is never refused.
  return suggestBundleName(raw)
}
