import { createHash } from "node:crypto"
import { describe, expect, it } from "vitest"
import { sha256Hex } from "../../src/domain/Digest.js"
import { decodeUtf8 } from "../../src/domain/Utf8.js"

// The one SHA-256 helper and the one strict UTF-8 decoder every layer shares.

describe("sha256Hex", () => {
  it("hashes strings as their UTF-8 bytes, to 64 lowercase hex digits", () => {
    expect(sha256Hex("")).toBe("e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855")
    expect(sha256Hex("abc")).toBe("ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad")
    expect(sha256Hex("é")).toBe(sha256Hex(new Uint8Array([0xc3, 0xa9])))
  })

  it("hashes parts as their concatenation", () => {
    const bytes = new Uint8Array([0, 1, 2, 255])
    expect(sha256Hex(["a.md\0", bytes, "b"])).toBe(createHash("sha256").update(Buffer.concat([Buffer.from("a.md\0"), bytes, Buffer.from("b")])).digest("hex"))
    expect(sha256Hex([])).toBe(sha256Hex(""))
  })
})

describe("decodeUtf8", () => {
  it("decodes valid UTF-8, keeping a leading BOM so the text encodes back to the same bytes", () => {
    expect(decodeUtf8(new TextEncoder().encode("héllo ✓"))).toBe("héllo ✓")
    const withBom = new Uint8Array([0xef, 0xbb, 0xbf, 0x61])
    expect(decodeUtf8(withBom)).toBe("\uFEFFa")
    expect(new TextEncoder().encode(decodeUtf8(withBom))).toEqual(withBom)
  })

  it("is undefined for bytes that are not UTF-8 (never replacement characters)", () => {
    for (const bad of [[0xff], [0xc3], [0xe2, 0x9c], [0xed, 0xa0, 0x80], [0x61, 0x80, 0x62]]) expect(decodeUtf8(new Uint8Array(bad)), bad.join(",")).toBeUndefined()
    // a failure leaves no state behind for the next call
    expect(decodeUtf8(new Uint8Array([0x61]))).toBe("a")
  })
})
