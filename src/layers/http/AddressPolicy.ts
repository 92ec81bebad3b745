import ipaddr from "ipaddr.js"

/**
 * Which IP addresses the website crawler may connect to (spec 02 website,
 * R-WEB-2). Explicit CIDR tables, one row per block with why it is refused,
 * rather than ipaddr.js `range()` names: those names lump blocks together and
 * change between versions.
 *
 * Embedded IPv4 forms (decision):
 * - IPv4-mapped ::ffff:0:0/96, NAT64 64:ff9b::/96 and 6to4 2002::/16 carry a
 *   real IPv4 destination: that address is checked like any other (a public
 *   site reached through DNS64 stays reachable, 64:ff9b::a9fe:a9fe is refused).
 * - IPv4-compatible ::/96 (deprecated since RFC 4291), local-use NAT64
 *   64:ff9b:1::/48 (RFC 8215: site-defined prefix length, so the IPv4 part has
 *   no fixed place) and Teredo 2001::/32 (the client address is obfuscated and
 *   the server is a relay) are refused outright.
 * - Any IPv6 address outside global unicast 2000::/3 is refused too: IANA has
 *   allocated nothing public there, so a block missed below still fails closed.
 */

export type AddressVerdict = { readonly allowed: true } | { readonly allowed: false; readonly reason: string }

interface Row {
  readonly cidr: string
  readonly why: string
}

/** Checked before the refusals: globally reachable hosts inside a refused block. */
const ipv4Exceptions: ReadonlyArray<Row> = [
  { cidr: "192.0.0.9/32", why: "Port Control Protocol anycast (RFC 7723), globally reachable" },
  { cidr: "192.0.0.10/32", why: "Traversal Using Relays around NAT anycast (RFC 8155), globally reachable" }
]

const ipv4Refused: ReadonlyArray<Row> = [
  { cidr: "0.0.0.0/8", why: "a 'this network' address (0.0.0.0/8); 0.0.0.0 reaches the local host" },
  { cidr: "10.0.0.0/8", why: "a private address (10.0.0.0/8)" },
  { cidr: "100.64.0.0/10", why: "a carrier-grade NAT address (100.64.0.0/10)" },
  { cidr: "127.0.0.0/8", why: "a loopback address (127.0.0.0/8)" },
  { cidr: "169.254.0.0/16", why: "a link-local address (169.254.0.0/16, includes cloud metadata 169.254.169.254)" },
  { cidr: "172.16.0.0/12", why: "a private address (172.16.0.0/12)" },
  { cidr: "192.0.0.0/24", why: "an IETF protocol assignment (192.0.0.0/24)" },
  { cidr: "192.0.2.0/24", why: "a documentation address (TEST-NET-1, 192.0.2.0/24)" },
  { cidr: "192.88.99.0/24", why: "a deprecated 6to4 relay anycast address (192.88.99.0/24)" },
  { cidr: "192.168.0.0/16", why: "a private address (192.168.0.0/16)" },
  { cidr: "198.18.0.0/15", why: "a benchmarking address (198.18.0.0/15)" },
  { cidr: "198.51.100.0/24", why: "a documentation address (TEST-NET-2, 198.51.100.0/24)" },
  { cidr: "203.0.113.0/24", why: "a documentation address (TEST-NET-3, 203.0.113.0/24)" },
  { cidr: "224.0.0.0/4", why: "a multicast address (224.0.0.0/4)" },
  // Before 240/4 so the reason names it.
  { cidr: "255.255.255.255/32", why: "the broadcast address (255.255.255.255)" },
  { cidr: "240.0.0.0/4", why: "a reserved address (240.0.0.0/4)" }
]

const ipv6Refused: ReadonlyArray<Row> = [
  { cidr: "::/128", why: "the unspecified address (::)" },
  { cidr: "::1/128", why: "the loopback address (::1)" },
  { cidr: "::/96", why: "an IPv4-compatible address (::/96, deprecated)" },
  { cidr: "64:ff9b:1::/48", why: "a local-use NAT64 address (64:ff9b:1::/48)" },
  { cidr: "100::/64", why: "a discard-only address (100::/64)" },
  { cidr: "2001::/32", why: "a Teredo address (2001::/32); its real destination cannot be checked" },
  { cidr: "2001:2::/48", why: "a benchmarking address (2001:2::/48)" },
  { cidr: "2001:10::/28", why: "a deprecated ORCHID address (2001:10::/28)" },
  { cidr: "2001:db8::/32", why: "a documentation address (2001:db8::/32)" },
  { cidr: "3fff::/20", why: "a documentation address (3fff::/20)" },
  { cidr: "fc00::/7", why: "a unique local address (fc00::/7)" },
  { cidr: "fe80::/10", why: "a link-local address (fe80::/10)" },
  { cidr: "fec0::/10", why: "a site-local address (fec0::/10, deprecated)" },
  { cidr: "ff00::/8", why: "a multicast address (ff00::/8)" }
]

/** Forms carrying an IPv4 destination; `at` is the byte offset of the 4 IPv4 bytes. */
const ipv6Embedding: ReadonlyArray<Row & { readonly at: number }> = [
  { cidr: "::ffff:0:0/96", why: "IPv4-mapped", at: 12 },
  { cidr: "64:ff9b::/96", why: "NAT64", at: 12 },
  { cidr: "2002::/16", why: "6to4", at: 2 }
]

const globalUnicast = ipaddr.IPv6.parseCIDR("2000::/3")

type Parsed<T extends Row> = T & { readonly range: [ipaddr.IPv4 | ipaddr.IPv6, number] }
const parseRows = <T extends Row>(rows: ReadonlyArray<T>): ReadonlyArray<Parsed<T>> =>
  rows.map((row) => ({ ...row, range: ipaddr.parseCIDR(row.cidr) }))

const v4Exceptions = parseRows(ipv4Exceptions)
const v4Refused = parseRows(ipv4Refused)
const v6Refused = parseRows(ipv6Refused)
const v6Embedding = parseRows(ipv6Embedding)

const allowed: AddressVerdict = { allowed: true }

const checkV4 = (ip: ipaddr.IPv4): { readonly why: string } | undefined => {
  if (v4Exceptions.some((row) => ip.match(row.range))) return undefined
  return v4Refused.find((row) => ip.match(row.range))
}

const checkV6 = (ip: ipaddr.IPv6, shown: string): AddressVerdict => {
  // Embedded forms first: ::ffff:0:0/96 would otherwise fall to "outside 2000::/3".
  for (const row of v6Embedding) {
    if (!ip.match(row.range)) continue
    const bytes = ip.toByteArray().slice(row.at, row.at + 4)
    const inner = new ipaddr.IPv4(bytes)
    const refused = checkV4(inner)
    return refused === undefined
      ? allowed
      : { allowed: false, reason: `${shown} is an ${row.why} form of ${inner.toString()}, ${refused.why}` }
  }
  const refused = v6Refused.find((row) => ip.match(row.range))
  if (refused !== undefined) return { allowed: false, reason: `${shown} is ${refused.why}` }
  if (!ip.match(globalUnicast)) return { allowed: false, reason: `${shown} is outside IPv6 global unicast (2000::/3)` }
  return allowed
}

/**
 * An IPv6 literal read the way a socket reads it. ipaddr.js alone is not enough:
 * it takes the deprecated "::a.b.c.d" for "::ffff:a.b.c.d". The WHATWG URL
 * parser (what undici uses) gives the canonical hex form first.
 */
const parseV6 = (literal: string): ipaddr.IPv6 | undefined => {
  const bare = literal.split("%")[0] ?? literal
  try {
    const canonical = new URL(`http://[${bare}]/`).hostname.slice(1, -1)
    return ipaddr.IPv6.isValid(canonical) ? ipaddr.IPv6.parse(canonical) : undefined
  } catch {
    return undefined
  }
}

/** Whether the crawler may connect to `ip` (an IPv4 or IPv6 literal, brackets and zone id allowed). */
export const checkAddress = (ip: string): AddressVerdict => {
  const literal = ip.startsWith("[") && ip.endsWith("]") ? ip.slice(1, -1) : ip
  const notIp: AddressVerdict = { allowed: false, reason: `${ip === "" ? "(empty)" : ip} is not an IP address` }
  if (literal.includes(":")) {
    const v6 = parseV6(literal)
    return v6 === undefined ? notIp : checkV6(v6, literal)
  }
  if (!ipaddr.IPv4.isValid(literal)) return notIp
  const refused = checkV4(ipaddr.IPv4.parse(literal))
  return refused === undefined ? allowed : { allowed: false, reason: `${literal} is ${refused.why}` }
}

/** True when `host` is an IP literal (brackets allowed) rather than a name to resolve. */
export const isIpLiteral = (host: string): boolean => {
  const literal = host.startsWith("[") && host.endsWith("]") ? host.slice(1, -1) : host
  return ipaddr.IPv4.isValidFourPartDecimal(literal) || ipaddr.IPv6.isValid(literal)
}

/** One spelling per address, so allowHosts ["::1"] matches a URL host "[::1]" and names compare case-blind. */
export const normalizeHost = (host: string): string => {
  const bare = host.startsWith("[") && host.endsWith("]") ? host.slice(1, -1) : host
  if (bare.includes(":")) return parseV6(bare)?.toNormalizedString() ?? bare.toLowerCase()
  if (ipaddr.IPv4.isValidFourPartDecimal(bare)) return ipaddr.IPv4.parse(bare).toString()
  return bare.toLowerCase().replace(/\.$/, "")
}
