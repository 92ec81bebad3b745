// Redactor throughput (issue "One redactor": ≥ 20 MB/s on prose with stored values).
//
//   npx vite-node bench/redactor.ts [--mb N] [--values N]
//
// Prose made of ordinary words and punctuation (no secrets: the common case of
// every write), redacted with N stored value digests (default 50); prints MB/s
// for prose, for prose with a secret every ~4 KiB, and for base64-ish noise.
import { randomBytes } from "node:crypto"
import { digestValue, redact, valueKey, valueSet } from "../src/domain/Redaction.js"

const arg = (name: string, fallback: number) => {
  const i = process.argv.indexOf(name)
  return i >= 0 ? Number(process.argv[i + 1]) : fallback
}
const megabytes = arg("--mb", 8)
const valueCount = arg("--values", 50)

const WORDS = (
  "the a of to and in is it that for on with as was at by an be this from or are not have has had but what all were when " +
  "index search bundle deploy staging runner proposal memory ledger failure question decision config workspace query item " +
  "result token tokenizer password manager rotation schedule Friday review agent knowledge skill command release version"
).split(" ")

let seed = 42
const next = () => (seed = (Math.imul(seed, 1103515245) + 12345) >>> 0)
const prose = (bytes: number) => {
  const parts: Array<string> = []
  let size = 0
  while (size < bytes) {
    let sentence = ""
    const n = 6 + (next() % 14)
    for (let i = 0; i < n; i++) sentence += (i === 0 ? "" : " ") + WORDS[next() % WORDS.length]
    sentence = `${sentence[0]!.toUpperCase()}${sentence.slice(1)}${next() % 5 === 0 ? ",\n" : ". "}`
    parts.push(sentence)
    size += sentence.length
  }
  return parts.join("")
}

const key = valueKey(randomBytes(32))
const values = Array.from({ length: valueCount }, (_, i) => `${randomBytes(6 + (i % 20)).toString("base64url")}`)
const set = valueSet(key, values.map((v) => digestValue(key, v)))

const measure = (label: string, text: string) => {
  redact(text.slice(0, 100_000), { values: set }) // warm up
  const runs: Array<number> = []
  for (let r = 0; r < 3; r++) {
    // CPU time, not wall time: the figure should not depend on what else the machine runs.
    const start = process.cpuUsage()
    redact(text, { values: set })
    const used = process.cpuUsage(start)
    runs.push((used.user + used.system) / 1e6)
  }
  const best = Math.min(...runs)
  const mb = Buffer.byteLength(text) / 1024 / 1024
  console.log(`${label.padEnd(36)} ${mb.toFixed(1)} MB  ${(mb / best).toFixed(1)} MB/s of CPU time (best of 3)`)
}

const text = prose(megabytes * 1024 * 1024)
console.log(`${set.size} stored values, node ${process.version}`)
measure("prose", text)
let planted = ""
for (let i = 0; i < text.length; i += 4096) planted += `${text.slice(i, i + 4096)} ${values[(i / 4096) % values.length]} `
measure("prose + a stored value every 4 KiB", planted)
measure("base64 noise", randomBytes(megabytes * 1024 * 1024 * 0.75).toString("base64").replace(/(.{76})/g, "$1\n").slice(0, megabytes * 1024 * 1024 / 4))
