import { createHash } from "node:crypto"
import { createServer, type Server } from "node:http"
import type { AddressInfo } from "node:net"
import { gzipSync } from "node:zlib"

/**
 * A local npm registry for tests (node:http on 127.0.0.1, port 0): serves
 * packuments at `/<name>` and `/@scope%2fname` and tarballs at
 * `/<name>/-/<base>-<version>.tgz`. Tarballs are written here byte by byte
 * (512-byte ustar headers with their checksum, then gzip) so tests can build
 * the malicious ones node-tar refuses to create.
 */

// --- tar writing -------------------------------------------------------------------------------

export type TarType = "file" | "hardlink" | "symlink" | "char" | "block" | "dir" | "fifo" | "pax" | "gnu-longname"
const TYPE_FLAG: Record<TarType, string> = { file: "0", hardlink: "1", symlink: "2", char: "3", block: "4", dir: "5", fifo: "6", pax: "x", "gnu-longname": "L" }

export interface TarEntry {
  /** The entry name; a Buffer to put raw bytes (a NUL) into the name field. */
  readonly path: string | Buffer
  readonly type?: TarType | undefined
  readonly content?: string | Buffer | undefined
  readonly linkpath?: string | undefined
  /** The size written in the header (defaults to the content's length); the body is the content either way. */
  readonly size?: number | undefined
  readonly mode?: number | undefined
}

const octal = (value: number, width: number): string => value.toString(8).padStart(width - 1, "0") + "\0"

const field = (block: Buffer, offset: number, length: number, value: string | Buffer): void => {
  const bytes = typeof value === "string" ? Buffer.from(value, "utf8") : value
  if (bytes.length > length) throw new Error(`tar field too long: ${bytes.toString()}`)
  bytes.copy(block, offset)
}

/** One 512-byte ustar header with a valid checksum. */
export const tarHeader = (entry: TarEntry, size: number): Buffer => {
  const block = Buffer.alloc(512)
  const type = entry.type ?? "file"
  field(block, 0, 100, entry.path)
  field(block, 100, 8, octal(entry.mode ?? (type === "dir" ? 0o755 : 0o644), 8))
  field(block, 108, 8, octal(1000, 8))
  field(block, 116, 8, octal(1000, 8))
  field(block, 124, 12, octal(size, 12))
  field(block, 136, 12, octal(499162500, 12)) // 1985-10-26, as npm pack writes
  field(block, 148, 8, "        ")
  field(block, 156, 1, TYPE_FLAG[type])
  if (entry.linkpath !== undefined) field(block, 157, 100, entry.linkpath)
  field(block, 257, 6, "ustar\0")
  field(block, 263, 2, "00")
  if (type === "char" || type === "block") {
    field(block, 329, 8, octal(1, 8))
    field(block, 337, 8, octal(3, 8))
  }
  let sum = 0
  for (const byte of block) sum += byte
  field(block, 148, 8, sum.toString(8).padStart(6, "0") + "\0 ")
  return block
}

const padding = (length: number): Buffer => Buffer.alloc((512 - (length % 512)) % 512)

/** A pax 'x' record set, e.g. { path: "…" }. */
export const paxRecords = (records: Readonly<Record<string, string | Buffer>>): Buffer =>
  Buffer.concat(Object.entries(records).map(([key, value]) => {
    const body = Buffer.concat([Buffer.from(` ${key}=`), typeof value === "string" ? Buffer.from(value) : value, Buffer.from("\n")])
    let length = body.length + 1
    while (String(length).length + body.length !== length) length = String(length).length + body.length
    return Buffer.concat([Buffer.from(String(length)), body])
  }))

/** The uncompressed bytes of one entry: header, body, padding. */
export const tarEntryBytes = (entry: TarEntry): Buffer => {
  const body = entry.content === undefined ? Buffer.alloc(0) : typeof entry.content === "string" ? Buffer.from(entry.content) : entry.content
  return Buffer.concat([tarHeader(entry, entry.size ?? body.length), body, padding(body.length)])
}

export const END_OF_ARCHIVE = Buffer.alloc(1024)

/** A whole uncompressed tar archive. */
export const tar = (entries: ReadonlyArray<TarEntry>): Buffer => Buffer.concat([...entries.map(tarEntryBytes), END_OF_ARCHIVE])

/** A gzipped tar archive. */
export const tgz = (entries: ReadonlyArray<TarEntry>): Buffer => gzipSync(tar(entries))

/** A normal npm tarball: every file under `package/`, the way npm pack lays it out. */
export const packageTarball = (files: Readonly<Record<string, string | Buffer>>, prefix = "package"): Buffer =>
  tgz([
    { path: `${prefix}/`, type: "dir" },
    ...Object.entries(files).map(([name, content]): TarEntry => ({ path: `${prefix}/${name}`, content }))
  ])

export const sha512 = (bytes: Buffer): string => `sha512-${createHash("sha512").update(bytes).digest("base64")}`

// --- the registry ------------------------------------------------------------------------------

export interface PublishOptions {
  /** dist-tags to point at this version; `latest` moves by default unless the version is a prerelease. */
  readonly tags?: ReadonlyArray<string>
  /** What dist.integrity says (default: the tarball's sha512); null leaves it out. */
  readonly integrity?: string | null
  readonly shasum?: string
  /** Serve these bytes instead of the tarball (an integrity mismatch). */
  readonly serve?: Buffer
}

export interface NpmRegistry {
  readonly url: string
  /** Request paths in order, e.g. "/@scope%2fkb". */
  readonly requests: ReadonlyArray<string>
  readonly publish: (name: string, version: string, tarball: Buffer, options?: PublishOptions) => void
  readonly tag: (name: string, tag: string, version: string) => void
  /** Stops answering (the registry is down); the URL stays reserved by nobody. */
  readonly close: () => Promise<void>
}

interface Package {
  versions: Record<string, { manifest: Record<string, unknown>; bytes: Buffer }>
  tags: Record<string, string>
}

export const startNpmRegistry = async (): Promise<NpmRegistry> => {
  const packages = new Map<string, Package>()
  const requests: Array<string> = []
  let base = ""

  const server: Server = createServer((request, response) => {
    const url = request.url ?? "/"
    requests.push(url)
    const pathname = decodeURIComponent(url.split("?")[0]!).slice(1)
    const tarball = /^(.+)\/-\/[^/]+-(\d[^/]*)\.tgz$/.exec(pathname)
    if (tarball !== null) {
      const found = packages.get(tarball[1]!)?.versions[tarball[2]!]
      if (found === undefined) return void response.writeHead(404).end()
      response.writeHead(200, { "content-type": "application/octet-stream", "content-length": found.bytes.length })
      return void response.end(found.bytes)
    }
    const pkg = packages.get(pathname)
    if (pkg === undefined) {
      response.writeHead(404, { "content-type": "application/json" })
      return void response.end(JSON.stringify({ error: "Not found" }))
    }
    const document = {
      name: pathname,
      "dist-tags": pkg.tags,
      versions: Object.fromEntries(Object.entries(pkg.versions).map(([version, entry]) => [version, entry.manifest]))
    }
    response.writeHead(200, { "content-type": "application/vnd.npm.install-v1+json" })
    response.end(JSON.stringify(document))
  })
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve))
  base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`

  return {
    url: base,
    requests,
    publish: (name, version, tarball, options = {}) => {
      const pkg = packages.get(name) ?? { versions: {}, tags: {} }
      packages.set(name, pkg)
      const file = `${name.split("/").pop()}-${version}.tgz`
      const dist: Record<string, unknown> = { tarball: `${base}/${name.replace("/", "%2f")}/-/${file}` }
      if (options.integrity !== null) dist.integrity = options.integrity ?? sha512(tarball)
      if (options.shasum !== undefined) dist.shasum = options.shasum
      pkg.versions[version] = { manifest: { name, version, dist }, bytes: options.serve ?? tarball }
      for (const tag of options.tags ?? (version.includes("-") ? [] : ["latest"])) pkg.tags[tag] = version
    },
    tag: (name, tag, version) => {
      packages.get(name)!.tags[tag] = version
    },
    close: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections()
        server.close(() => resolve())
      })
  }
}
