/**
 * A raw look at tar headers, fed the same decompressed bytes node-tar parses.
 * node-tar cuts every name at its first NUL ("a.md\0../../x" reads as "a.md")
 * and honours pax `size` overrides, so what it reports cannot show either;
 * this audit sees the header bytes themselves and refuses:
 * - a NUL inside a name, link name, prefix, GNU long name or pax record;
 * - a pax `size` record (npm tarballs never need one; it is where tar readers disagree);
 * - a body on an entry type that has none (a directory, link, device, FIFO);
 * - a header whose checksum does not match (not a tar archive, or a damaged one).
 * It also counts entries, so the caller can check both readers saw the same number.
 */

export interface HeaderFinding {
  /** The entry's name as far as it can be read. */
  readonly entry: string
  readonly rule: string
}

const BLOCK = 512
const META_TYPES = new Set(["x", "g", "L", "K"])
const FILE_TYPES = new Set(["0", "", "7"])
const MAX_META = 1024 * 1024

/** NUL followed by anything but NUL padding. */
const hasInnerNul = (bytes: Uint8Array): boolean => {
  const first = bytes.indexOf(0)
  if (first === -1) return false
  for (let i = first + 1; i < bytes.length; i++) if (bytes[i] !== 0) return true
  return false
}

const text = (bytes: Uint8Array): string => {
  const nul = bytes.indexOf(0)
  return Buffer.from(nul === -1 ? bytes : bytes.subarray(0, nul)).toString("utf8")
}

/** node-tar's number decoding: base-256 when the high bit is set, else octal. */
const sizeOf = (field: Uint8Array): number => {
  if ((field[0]! & 0x80) !== 0) {
    if ((field[0]! & 0x40) !== 0) return Number.NaN // negative
    let value = field[0]! & 0x7f
    for (let i = 1; i < field.length; i++) value = value * 256 + field[i]!
    return value
  }
  const digits = text(field).trim()
  return digits === "" ? 0 : /^[0-7]+$/.test(digits) ? parseInt(digits, 8) : Number.NaN
}

/** The ustar checksum: the sum of the header's bytes with the checksum field read as spaces. */
const checksumValid = (block: Buffer): boolean => {
  const recorded = sizeOf(block.subarray(148, 156))
  let sum = 8 * 0x20
  for (let i = 0; i < 148; i++) sum += block[i]!
  for (let i = 156; i < BLOCK; i++) sum += block[i]!
  return sum === recorded
}

export class TarHeaderAudit {
  private header = Buffer.alloc(0)
  /** Bytes of the current body still to pass (including padding). */
  private skip = 0
  /** A meta entry's body being collected, with its type and unpadded length. */
  private meta: { type: string; size: number; chunks: Array<Buffer>; got: number } | undefined
  /** A GNU long name or pax path waiting for its entry (to name findings). */
  private pendingName: string | undefined
  private finding: HeaderFinding | undefined
  /** Non-meta entries seen. */
  entries = 0

  get result(): HeaderFinding | undefined {
    return this.finding
  }

  write(chunk: Buffer): void {
    let offset = 0
    while (offset < chunk.length && this.finding === undefined) {
      if (this.meta !== undefined) {
        const padded = Math.ceil(this.meta.size / BLOCK) * BLOCK
        const take = Math.min(padded - this.meta.got, chunk.length - offset)
        this.meta.chunks.push(chunk.subarray(offset, offset + take))
        this.meta.got += take
        offset += take
        if (this.meta.got === padded) this.endMeta()
        continue
      }
      if (this.skip > 0) {
        const take = Math.min(this.skip, chunk.length - offset)
        this.skip -= take
        offset += take
        continue
      }
      const need = BLOCK - this.header.length
      const take = Math.min(need, chunk.length - offset)
      this.header = Buffer.concat([this.header, chunk.subarray(offset, offset + take)])
      offset += take
      if (this.header.length === BLOCK) {
        const block = this.header
        this.header = Buffer.alloc(0)
        this.onHeader(block)
      }
    }
  }

  private refuse(entry: string, rule: string): void {
    this.finding ??= { entry, rule }
  }

  private onHeader(block: Buffer): void {
    if (block.every((byte) => byte === 0)) return // end-of-archive or padding
    if (!checksumValid(block)) return this.refuse("(a header)", "not a valid tar archive (header checksum mismatch)")
    const name = block.subarray(0, 100)
    const type = text(block.subarray(156, 157))
    const linkName = block.subarray(157, 257)
    const ustar = block.subarray(257, 263).toString("latin1") === "ustar\0"
    const prefix = ustar ? block.subarray(345, 500) : new Uint8Array()
    const shown = this.pendingName ?? [text(prefix), text(name)].filter((part) => part !== "").join("/")
    if (hasInnerNul(name) || hasInnerNul(linkName) || hasInnerNul(prefix)) return this.refuse(JSON.stringify(shown), "NUL byte in an entry name")
    const size = sizeOf(block.subarray(124, 136))
    if (!Number.isSafeInteger(size) || size < 0) return this.refuse(shown, "unreadable entry size")
    if (META_TYPES.has(type)) {
      if (size > MAX_META) return this.refuse(shown, "oversized extended header")
      if (size === 0) return
      this.meta = { type, size, chunks: [], got: 0 }
      return
    }
    this.entries++
    this.pendingName = undefined
    const isFile = FILE_TYPES.has(type) && !shown.endsWith("/")
    if (!isFile && size > 0) return this.refuse(shown, "a body on an entry type that has none")
    this.skip = Math.ceil(size / BLOCK) * BLOCK
  }

  private endMeta(): void {
    const meta = this.meta!
    this.meta = undefined
    const body = Buffer.concat(meta.chunks).subarray(0, meta.size)
    if (meta.type === "L" || meta.type === "K") {
      if (hasInnerNul(body)) return this.refuse(JSON.stringify(body.toString("utf8")), "NUL byte in an entry name")
      if (meta.type === "L") this.pendingName = text(body)
      return
    }
    // pax records: "<len> <key>=<value>\n"
    let at = 0
    while (at < body.length) {
      const space = body.indexOf(0x20, at)
      const length = space === -1 ? Number.NaN : Number(body.subarray(at, space).toString("latin1"))
      if (!Number.isSafeInteger(length) || length <= 0 || at + length > body.length) {
        // Trailing NUL padding is how some writers end the block.
        if (body.subarray(at).every((byte) => byte === 0)) return
        return this.refuse(this.pendingName ?? "(pax header)", "malformed pax header")
      }
      const record = body.subarray(space + 1, at + length - 1)
      const eq = record.indexOf(0x3d)
      const key = record.subarray(0, eq === -1 ? record.length : eq).toString("utf8")
      const value = eq === -1 ? Buffer.alloc(0) : record.subarray(eq + 1)
      if (key === "path" && meta.type === "x") this.pendingName = value.toString("utf8")
      if (value.includes(0)) return this.refuse(JSON.stringify(value.toString("utf8")), `NUL byte in a pax '${key}' record`)
      if (key === "size") return this.refuse(this.pendingName ?? "(pax header)", "pax size override")
      at += length
    }
  }
}
