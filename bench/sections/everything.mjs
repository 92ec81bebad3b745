// The everything section (issue 22 §5): `akm everything` wall time (process
// start included) on a generated project of 2,000 ledger records, 200 rules
// and 500 docs in a real git repository — full (`--all`, target ≤ 30 s) and
// after a one-character change to a doc that is neither briefed nor under
// docs/business/ (target ≤ 1 s, every generating station skipped) — and
// which stations ran each time.
import { execFileSync, spawnSync } from "node:child_process"
import { mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs"
import { tmpdir } from "node:os"
import { dirname, join } from "node:path"
import { fileURLToPath } from "node:url"
import { build } from "esbuild"
import { round2 } from "../measure.mjs"

const repo = fileURLToPath(new URL("../..", import.meta.url))
const bin = join(repo, "bin", "akm.js")

export const EVERYTHING_TARGETS = { fullMs: 30_000, typoMs: 1_000 }
const GENERATING = ["PROJECT", "SURFACE"]

/** The ledger's fingerprint function, bundled from the source so generated records carry the fingerprint akm computes. */
const loadFingerprint = async () => {
  const out = await build({ entryPoints: [join(repo, "src", "domain", "ledger", "Fingerprint.ts")], bundle: true, platform: "node", format: "esm", write: false, logLevel: "warning" })
  return (await import(`data:text/javascript;base64,${Buffer.from(out.outputFiles[0].text).toString("base64")}`)).fingerprint
}

const write = (root, rel, text) => {
  mkdirSync(dirname(join(root, rel)), { recursive: true })
  writeFileSync(join(root, rel), text)
}

const record = (kind, id, title, fields, extra = "", dates = ["2026-10-01"]) =>
  [
    "---",
    `kind: ${kind}`,
    `id: ${id}`,
    `title: ${title}`,
    ...(extra === "" ? [] : [extra]),
    "occurrences:",
    ...dates.flatMap((d) => [`  - date: ${d}`, "    source: self-report"]),
    "sources:",
    "  - self-report",
    "---",
    "",
    ...Object.entries(fields).flatMap(([heading, text]) => [`## ${heading}`, "", text, ""])
  ].join("\n")

/** 2,000 ledger records (1,000 failures, 20 of them recurring and decided; decisions, answered questions, surprises), 200 rules, 500 docs. */
const generate = async (root) => {
  const fingerprint = await loadFingerprint()
  const components = Array.from({ length: 20 }, (_, i) => `svc${String(i).padStart(2, "0")}`)
  write(root, "README.md", "# Bench shop\n\nA generated project for the everything benchmark.\n")
  write(root, "package.json", JSON.stringify({ name: "bench-shop", version: "1.0.0", dependencies: Object.fromEntries(Array.from({ length: 30 }, (_, i) => [`dep-${i}`, `^${i + 1}.0.0`])) }, null, 2))
  for (const c of components) {
    write(root, `src/${c}/README.md`, `# ${c}\n\nThe ${c} component: it serves part of the shop.\n`)
    write(root, `src/${c}/index.js`, `export const name = "${c}"\n`)
  }
  for (let i = 0; i < 200; i++) {
    const id = String(i + 1).padStart(3, "0")
    write(root, `rules/${id}-rule-${i}.md`, `---\nid: "${id}"\nscope: ["src/${components[i % 20]}/**"]\nmandates:\n  - { must: true, subject: "keep invariant ${i} of ${components[i % 20]}" }\n---\n\n# Keep invariant ${i}\n\n## Purpose\n\nInvariant ${i} protects the data of ${components[i % 20]}.\n\n## Mandatory rules\n\n1. Keep invariant ${i} of ${components[i % 20]} on every change.\n`)
  }
  for (let i = 0; i < 500; i++) {
    const [dir, n] = i < 20 ? ["adr", i] : i < 50 ? ["business", i - 20] : ["notes", i - 50]
    const body = dir === "business" ? `Orders over €${100 + n * 10} need approval ${n}.` : `${"Notes about how the shop works and why. ".repeat(12)}(${dir} ${n})`
    write(root, `docs/${dir}/${dir}-${String(n).padStart(3, "0")}.md`, `# ${dir} ${n}\n\n${body}\n`)
  }
  let records = 0
  for (let i = 0; i < 1000; i++) {
    const fields = { error_class: `Bench${i}Error`, module: `src/${components[i % 20]}`, operation: `operation ${i}` }
    const fp = fingerprint(fields)
    const recurring = i < 20
    write(root, `.ai/ledger/failure/${fp}.md`, record("failure", fp, `Failure ${i}`, { Symptom: `symptom ${i}`, Trigger: `trigger ${i}`, "Root cause": `cause ${i}`, Fix: `fix ${i}`, Module: fields.module, Operation: fields.operation, "Error class": fields.error_class }, `fingerprint: ${fp}`, recurring ? ["2026-09-01", "2026-09-20"] : ["2026-09-01"]))
    records++
    if (recurring) {
      write(root, `.ai/ledger/decision/treat-${fp}-as-neither.md`, record("decision", `treat-${fp}-as-neither`, `Treat failure ${i} as neither`, { What: `Treat ${fp} as neither`, Alternatives: "- rule\n- skill", Why: "rare enough", "Cost accepted": "none stated" }, `decides: ${fp}\nchoice: neither\nabout: failure/${fp}`, ["2026-09-21"]))
      records++
    }
  }
  for (let i = 0; records < 2000; i++) {
    const kind = ["decision", "question", "surprise"][i % 3]
    const id = `${kind}-${i}`
    const fields = kind === "decision" ? { What: `choice ${i}`, Alternatives: "- the other one", Why: `reason ${i}`, "Cost accepted": "none" }
      : kind === "question" ? { Asked: `What about topic ${i}?`, Answer: `answer ${i}`, "Answered by": "bench", Date: "2026-10-01" }
      : { Behavior: `behaviour ${i}`, "Misleading symptom": `symptom ${i}`, Why: `why ${i}` }
    write(root, `.ai/ledger/${kind}/${id}.md`, record(kind, id, `${kind} ${i}`, fields))
    records++
  }
  return { records, rules: 200, docs: 500 }
}

export const everythingSection = async ({ onProgress }) => {
  const root = mkdtempSync(join(tmpdir(), "akm-bench-everything-"))
  const project = join(root, "shop")
  const env = { ...process.env, AKM_CONFIG_DIR: join(root, "config"), AKM_DATA_DIR: join(root, "data"), AKM_CACHE_DIR: join(root, "cache"), HOME: root, GIT_CONFIG_NOSYSTEM: "1", GIT_CONFIG_GLOBAL: join(root, ".gitconfig-none") }
  const git = (...args) => execFileSync("git", ["-c", "user.name=akm bench", "-c", "user.email=bench@example.invalid", "-c", "init.defaultBranch=main", ...args], { cwd: project, env, stdio: "ignore" })
  const akm = (...args) => {
    const started = process.hrtime.bigint()
    const cpuBefore = childCpuMs()
    const run = spawnSync(process.execPath, [bin, ...args, "--format", "json"], { cwd: project, env, encoding: "utf8", maxBuffer: 256 * 1024 * 1024 })
    const ms = round2(Number(process.hrtime.bigint() - started) / 1e6)
    const cpuAfter = childCpuMs()
    const cpuMs = cpuBefore === null || cpuAfter === null ? null : cpuAfter - cpuBefore
    if (run.status !== 0 && run.status !== 1) throw new Error(`akm ${args.join(" ")} exited ${run.status}: ${run.stderr.slice(0, 2000)}`)
    return { ms, cpuMs, code: run.status, json: JSON.parse(run.stdout) }
  }
  const stationsRan = (r) => r.json.steps.filter((s) => s.status === "ran").map((s) => s.step)
  try {
    mkdirSync(project, { recursive: true })
    onProgress("everything: generating the project")
    const size = await generate(project)
    git("init", "-q")
    git("add", "-A")
    git("commit", "-q", "-m", "the generated project")
    akm("init", "project")
    git("add", "-A")
    git("commit", "-q", "-m", "akm init project")

    onProgress("everything: --all")
    const full = akm("everything", "--all")
    git("add", "-A")
    git("commit", "-q", "-m", "the pipeline's output")
    // The commit is new work for CAPTURE (mine it); absorb it so the typo pass measures the typo alone.
    const afterCommit = akm("everything")

    const index = JSON.parse(readFileSync(join(project, ".ai/index.json"), "utf8"))
    const doc = index.items.find((e) => e.path.startsWith("docs/notes/") && !e.in_brief)?.path
    if (doc === undefined) throw new Error("no unbriefed doc under docs/notes/ in index.json")
    const text = readFileSync(join(project, doc), "utf8")
    writeFileSync(join(project, doc), text.replace("works", "worcs"))
    onProgress("everything: after a one-character change")
    const plan = akm("scope", "plan")
    const typo = akm("everything")
    const typoRan = stationsRan(typo)
    return {
      ...size,
      files: index.items.length,
      full: { ms: full.ms, cpuMs: full.cpuMs, exit: full.code, ran: stationsRan(full) },
      afterCommit: { ms: afterCommit.ms, cpuMs: afterCommit.cpuMs, ran: stationsRan(afterCommit) },
      typo: { doc, ms: typo.ms, cpuMs: typo.cpuMs, exit: typo.code, ran: typoRan, planned: plan.json.stations.filter((s) => s.work).map((s) => s.station), planMs: plan.ms, planCpuMs: plan.cpuMs, generatingSkipped: !typoRan.some((s) => GENERATING.includes(s)) },
      targets: EVERYTHING_TARGETS
    }
  } finally {
    // AKM_BENCH_KEEP=1 keeps the generated project to profile it.
    if (process.env.AKM_BENCH_KEEP === "1") process.stderr.write(`\nkept ${root}\n`)
    else rmSync(root, { recursive: true, force: true })
  }
}

/** CPU time (user + system, ms) of the waited-for children so far (Linux /proc; null elsewhere): a measure the machine's load does not inflate. */
const childCpuMs = () => {
  try {
    const fields = readFileSync("/proc/self/stat", "utf8").split(") ")[1].split(" ")
    return (Number(fields[13]) + Number(fields[14])) * 10
  } catch {
    return null
  }
}

const mark = (value, target) => (value <= target ? " ok" : " MISSED")

const cpu = (ms) => (ms === null ? "" : `${ms} ms`)

export const everythingRows = (s) => [
  ["measure", "wall", "cpu", "target (wall)", "stations that ran"],
  [`everything --all (${s.records} records, ${s.rules} rules, ${s.docs} docs)`, `${s.full.ms} ms`, cpu(s.full.cpuMs), `≤ ${s.targets.fullMs} ms${mark(s.full.ms, s.targets.fullMs)}`, s.full.ran.join(" ") || "none"],
  ["everything after the commit of its output", `${s.afterCommit.ms} ms`, cpu(s.afterCommit.cpuMs), "", s.afterCommit.ran.join(" ") || "none"],
  ["scope plan after a one-character change", `${s.typo.planMs} ms`, cpu(s.typo.planCpuMs), "", `planned: ${s.typo.planned.join(" ") || "none"}`],
  ["everything after a one-character change", `${s.typo.ms} ms`, cpu(s.typo.cpuMs), `≤ ${s.targets.typoMs} ms${mark(s.typo.ms, s.targets.typoMs)}`, `${s.typo.ran.join(" ") || "none"}${s.typo.generatingSkipped ? "" : " (a generating station ran)"}`]
]
