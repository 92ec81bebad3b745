/**
 * The SSRF matrix of spec 10 §3 (R-WEB-2/3) as URL origins, shared by the
 * HTTP client, git, npm and registry tests. Every one is an IP literal, which
 * the address policy refuses before any connection is made; the loopback
 * forms carry the test server's port so a policy bug could only ever reach
 * this machine's own test server.
 */
export const forbiddenOrigins = (port: number): ReadonlyArray<string> => [
  `http://127.0.0.2:${port}`,
  `http://[::1]:${port}`,
  `http://0.0.0.0:${port}`,
  "http://10.0.0.1",
  "http://172.16.0.1",
  "http://192.168.1.1",
  "http://169.254.169.254",
  "http://100.64.0.1",
  "http://192.0.2.1",
  "http://198.18.0.1",
  "http://240.0.0.1",
  "http://[fe80::1]",
  "http://[fc00::1]",
  "http://[fec0::1]",
  `http://[::ffff:127.0.0.1]:${port}`,
  "http://[64:ff9b::a9fe:a9fe]",
  "http://[2002:a9fe:a9fe::]"
]

/** The address class each refusal must name ("a loopback address", "a link-local address" …), as the policy words it. */
export const addressClass = / is (?:a|an|the) [^:]*(?:address|form of)/
