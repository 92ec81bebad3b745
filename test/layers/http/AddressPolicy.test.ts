import { describe, expect, it } from "vitest"
import { checkAddress, isIpLiteral, normalizeHost } from "../../../src/layers/http/AddressPolicy.js"

const reasonOf = (ip: string): string => {
  const verdict = checkAddress(ip)
  if (verdict.allowed) throw new Error(`${ip} was allowed`)
  return verdict.reason
}

describe("AddressPolicy.checkAddress (R-WEB-2)", () => {
  // Spec 10 §3 SSRF matrix, with the block each one must be refused as.
  const matrix: ReadonlyArray<readonly [string, RegExp]> = [
    ["127.0.0.1", /loopback/],
    ["::1", /loopback/],
    ["0.0.0.0", /this network/],
    ["10.0.0.1", /private.*10\.0\.0\.0\/8/],
    ["172.16.0.1", /private.*172\.16\.0\.0\/12/],
    ["192.168.1.1", /private.*192\.168\.0\.0\/16/],
    ["169.254.169.254", /link-local.*metadata/],
    ["100.64.0.1", /carrier-grade NAT/],
    ["192.0.2.1", /TEST-NET-1/],
    ["198.18.0.1", /benchmarking/],
    ["240.0.0.1", /reserved/],
    ["fe80::1", /link-local/],
    ["fc00::1", /unique local/],
    ["fec0::1", /site-local/],
    ["::ffff:127.0.0.1", /IPv4-mapped form of 127\.0\.0\.1, a loopback/],
    ["64:ff9b::a9fe:a9fe", /NAT64 form of 169\.254\.169\.254, a link-local/],
    ["2002:a9fe:a9fe::", /6to4 form of 169\.254\.169\.254, a link-local/]
  ]
  it.each(matrix)("refuses %s", (ip, why) => {
    expect(reasonOf(ip)).toMatch(why)
    expect(reasonOf(ip)).toContain(ip)
  })

  it.each(["192.0.0.9", "192.0.0.10", "8.8.8.8", "1.1.1.1", "2606:4700::1", "2001:4860:4860::8888", "93.184.216.34"])(
    "allows the public address %s",
    (ip) => {
      expect(checkAddress(ip)).toEqual({ allowed: true })
    }
  )

  it.each([
    ["0.1.2.3", /this network/],
    ["10.255.255.255", /private/],
    ["100.127.255.255", /carrier-grade/],
    ["127.255.255.254", /loopback/],
    ["169.254.0.1", /link-local/],
    ["172.31.255.255", /private/],
    ["192.0.0.1", /IETF protocol assignment/],
    ["192.0.0.8", /IETF protocol assignment/],
    ["192.0.0.11", /IETF protocol assignment/],
    ["192.168.255.255", /private/],
    ["198.19.255.255", /benchmarking/],
    ["198.51.100.7", /TEST-NET-2/],
    ["203.0.113.7", /TEST-NET-3/],
    ["224.0.0.1", /multicast/],
    ["239.255.255.250", /multicast/],
    ["255.255.255.255", /broadcast/],
    ["::", /unspecified/],
    ["::7f00:1", /IPv4-compatible/],
    ["::8.8.8.8", /IPv4-compatible/],
    ["::ffff:10.0.0.1", /IPv4-mapped form of 10\.0\.0\.1/],
    ["::ffff:169.254.169.254", /IPv4-mapped/],
    ["::ffff:0.0.0.0", /IPv4-mapped form of 0\.0\.0\.0/],
    ["64:ff9b::7f00:1", /NAT64 form of 127\.0\.0\.1/],
    ["64:ff9b::10.0.0.1", /NAT64 form of 10\.0\.0\.1/],
    ["64:ff9b:1::8.8.8.8", /local-use NAT64/],
    ["2002:7f00:1::", /6to4 form of 127\.0\.0\.1/],
    ["2002:0a00:0001:1234::1", /6to4 form of 10\.0\.0\.1/],
    ["2001::1", /Teredo/],
    ["2001:0:4136:e378:8000:63bf:3fff:fdd2", /Teredo/],
    ["2001:db8::1", /documentation/],
    ["2001:2::1", /benchmarking/],
    ["3fff::1", /documentation/],
    ["100::1", /discard-only/],
    ["fd12:3456:789a::1", /unique local/],
    ["febf::1", /link-local/],
    ["feff::1", /site-local/],
    ["ff02::1", /multicast/],
    ["fe80::1%eth0", /link-local/],
    ["[::1]", /loopback/],
    ["4000::1", /outside IPv6 global unicast/],
    ["::2", /IPv4-compatible/]
  ])("refuses the edge address %s", (ip, why) => {
    expect(reasonOf(ip)).toMatch(why)
  })

  it("checks the embedded IPv4 of mapped, NAT64 and 6to4 forms instead of refusing them outright", () => {
    expect(checkAddress("::ffff:8.8.8.8")).toEqual({ allowed: true })
    expect(checkAddress("64:ff9b::808:808")).toEqual({ allowed: true })
    expect(checkAddress("2002:808:808::1")).toEqual({ allowed: true })
    expect(checkAddress("::ffff:192.0.0.9")).toEqual({ allowed: true })
  })

  it("refuses what is not an IP address", () => {
    expect(reasonOf("example.com")).toMatch(/not an IP address/)
    expect(reasonOf("")).toMatch(/not an IP address/)
    expect(reasonOf("999.1.1.1")).toMatch(/not an IP address/)
  })

  it("reads shorthand IPv4 spellings the way a socket would", () => {
    // 0x7f.1 and 2130706433 both mean 127.0.0.1.
    expect(reasonOf("0x7f.1")).toMatch(/loopback/)
    expect(reasonOf("2130706433")).toMatch(/loopback/)
  })
})

describe("AddressPolicy helpers", () => {
  it("isIpLiteral tells literals from names", () => {
    expect(isIpLiteral("127.0.0.1")).toBe(true)
    expect(isIpLiteral("[::1]")).toBe(true)
    expect(isIpLiteral("::ffff:127.0.0.1")).toBe(true)
    expect(isIpLiteral("localhost")).toBe(false)
    expect(isIpLiteral("example.com")).toBe(false)
  })

  it("normalizeHost gives one spelling per host", () => {
    expect(normalizeHost("[::1]")).toBe(normalizeHost("::1"))
    expect(normalizeHost("[0:0::1]")).toBe(normalizeHost("::1"))
    expect(normalizeHost("LocalHost.")).toBe("localhost")
    expect(normalizeHost("127.0.0.1")).toBe("127.0.0.1")
  })
})
