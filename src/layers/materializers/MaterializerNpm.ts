import * as fs from "node:fs"
import * as path from "node:path"
import { Effect } from "effect"
import { sourceLocator } from "../../domain/Source.js"
import { MaterializeFailed, type Materialized } from "../../services/Materializer.js"
import { bundleHttp } from "../http/BundleHttp.js"
import { bundleCacheDir, commitStaging, discardStaging, makeStagingDir, revisionDirName } from "./CacheSources.js"
import { httpGet } from "./npm/HttpGet.js"
import { expectedIntegrity, verifyIntegrity } from "./npm/Integrity.js"
import { NpmProblem } from "./npm/NpmProblem.js"
import { DEFAULT_REGISTRY, fetchPackument, registryBase, resolveVersion } from "./npm/Registry.js"
import { type ArchiveLimits, defaultArchiveLimits, extractTarball } from "./npm/TarballExtract.js"
import type { MaterializerContext, SourceMaterializer } from "./SourceMaterializer.js"

/**
 * npm sources (spec 02 §2 npm): resolve the version from the registry's
 * package document, download the tarball, verify its sha512 integrity before
 * anything is unpacked, then validate and extract it into
 * $CACHE/sources/<bundle>/<version>. Nothing from the package ever runs:
 * lifecycle scripts (preinstall, install, postinstall, prepare) are plain
 * files here (R-BUN-1, R-RT-1).
 */

export interface NpmLimits extends ArchiveLimits {
  /** The compressed tarball. */
  readonly maxTarballBytes: number
  readonly maxPackumentBytes: number
  readonly packumentTimeoutMs: number
  readonly tarballTimeoutMs: number
}

export const defaultNpmLimits: NpmLimits = {
  ...defaultArchiveLimits,
  maxTarballBytes: 100 * 1024 * 1024,
  maxPackumentBytes: 64 * 1024 * 1024,
  packumentTimeoutMs: 60_000,
  tarballTimeoutMs: 300_000
}

type NpmSourceOf = Parameters<SourceMaterializer<"npm">["materialize"]>[1]

export const makeNpmMaterializer = (ctx: MaterializerContext, overrides: Partial<NpmLimits> = {}): SourceMaterializer<"npm"> => {
  const limits: NpmLimits = { ...defaultNpmLimits, ...overrides }
  return {
    kind: "npm",
    cached: true,
    materialize: (bundle, source, options) =>
      Effect.gen(function* () {
        const failed = (problem: { reason: string; hint: string }) => new MaterializeFailed({ bundle, source: sourceLocator(source), reason: problem.reason, hint: problem.hint })
        const npm = <A>(run: (signal: AbortSignal) => Promise<A>) =>
          Effect.tryPromise({ try: run, catch: (error) => failed(asProblem(error)) })

        const config = yield* ctx.config.pipe(
          Effect.mapError(() => failed({ reason: "cannot read config.yaml for npm.registry", hint: "run `akm config list` to see what is wrong with config.yaml" }))
        )
        const base = registryBase(source.registry, config.npm?.registry)
        // Plain http is allowed here: the registry is the user's choice, and every tarball is checked against its sha512.
        const client = yield* Effect.acquireRelease(Effect.sync(() => bundleHttp(config, { allowInsecure: true })), (c) => c.close)
        const packument = yield* npm((signal) =>
          fetchPackument(client, base, source.package, { maxBytes: limits.maxPackumentBytes, timeoutMs: limits.packumentTimeoutMs, signal })
        )
        const manifest = yield* Effect.try({ try: () => resolveVersion(packument, source.version), catch: (error) => failed(asProblem(error)) })
        const version = manifest.version
        const expected = expectedIntegrity(manifest.integrity)
        if (expected === undefined) {
          return yield* failed({
            reason: `${source.package}@${version} has no sha512 integrity in the registry${manifest.shasum === undefined ? "" : " (only a sha1 shasum)"}`,
            hint: "akm only installs tarballs it can verify with sha512 (versions published with npm 5 or later); pick a newer version"
          })
        }
        const locator = locatorOf(source, version, base)

        // Same version, same bytes, still on disk: nothing to fetch (an update with no change).
        const previous = options.previous
        if (
          options.force !== true && previous !== undefined && previous.revision === version && previous.integrity !== undefined &&
          expected.digests.some((digest) => `${expected.algorithm}-${digest}` === previous.integrity) && fs.existsSync(previous.root)
        ) {
          return { root: previous.root, revision: version, integrity: previous.integrity, locator } satisfies Materialized
        }

        const task = `download ${bundle}`
        // Progress at most every 256 KiB (and at the end): one line redraw per chunk would be wasted work.
        let reported = -Infinity
        const onBytes = (received: number, total: number | undefined) => {
          if (received - reported < 256 * 1024 && received !== total) return
          reported = received
          Effect.runFork(ctx.progress(task, received, total))
        }
        const tarball = yield* npm((signal) =>
          httpGet(client, manifest.tarball, {
            accept: "application/octet-stream, */*",
            maxBytes: limits.maxTarballBytes,
            timeoutMs: limits.tarballTimeoutMs,
            what: `the tarball of ${source.package}@${version}`,
            signal,
            onBytes
          }).then((response) => {
            if (response.status !== 200) {
              throw new NpmProblem({ reason: `GET ${manifest.tarball} answered HTTP ${response.status}`, hint: "the registry lists a tarball it cannot serve; retry later or pick another version" })
            }
            return response.body
          })
        )
        yield* ctx.progressDone(task, "done")

        // Integrity first: a mismatching tarball is never opened, let alone unpacked.
        const integrity = verifyIntegrity(tarball, expected)
        if (integrity === undefined) {
          return yield* failed({
            reason: `integrity mismatch for ${source.package}@${version}: the tarball from ${manifest.tarball} does not match the registry's ${expected.algorithm}`,
            hint: "nothing was extracted; the download was corrupted or tampered with — retry, and report it to the registry if it persists"
          })
        }

        const root = yield* Effect.uninterruptible(
          Effect.gen(function* () {
            const staging = yield* Effect.try({
              try: () => makeStagingDir(ctx.sourcesDir, bundle),
              catch: (error) => failed({ reason: `cannot create a staging folder: ${(error as Error).message}`, hint: "check the permissions of the akm cache folder (akm info shows it)" })
            })
            return yield* npm(() => extractTarball(tarball, staging, limits)).pipe(
              Effect.flatMap(() =>
                Effect.try({
                  try: () => commitStaging(ctx.sourcesDir, bundle, revisionKey(ctx.sourcesDir, bundle, version, integrity, previous), staging),
                  catch: (error) => failed({ reason: `cannot move the extracted package into the cache: ${(error as Error).message}`, hint: "check the permissions of the akm cache folder (akm info shows it)" })
                })
              ),
              Effect.onError(() => Effect.sync(() => discardStaging(staging)))
            )
          })
        )
        return { root, revision: version, integrity, locator } satisfies Materialized
      }).pipe(Effect.scoped)
  }
}

const asProblem = (error: unknown): { reason: string; hint: string } =>
  error instanceof NpmProblem ? { reason: error.reason, hint: error.hint } : { reason: String((error as Error)?.message ?? error), hint: "retry; if it persists, report it" }

const locatorOf = (source: NpmSourceOf, version: string, base: string): string =>
  `npm:${source.package}@${version}${base === DEFAULT_REGISTRY ? "" : ` (${base})`}`

/**
 * The cache folder name: the version, as spec 02 §2 says — unless a folder of
 * that version already exists that is not known to hold these very bytes (a
 * registry that republished, or a bundle whose package changed): then a name
 * that includes the digest, so an existing revision is never reused for other bytes.
 */
const revisionKey = (sourcesDir: string, bundle: string, version: string, integrity: string, previous: { root: string; integrity?: string | undefined } | undefined): string => {
  const plain = path.join(bundleCacheDir(sourcesDir, bundle), revisionDirName(version))
  if (!fs.existsSync(plain)) return version
  if (previous !== undefined && path.resolve(previous.root) === plain && previous.integrity === integrity) return version
  const digest = Buffer.from(integrity.slice(integrity.indexOf("-") + 1), "base64").toString("hex").slice(0, 16)
  return `${version}-${digest}`
}
