/**
 * A test-only CLI entry point for Improve: the same `runCli` as bin/akm.js
 * with a file-backed evidence list and a scripted, optionally slow generator
 * in place of the shipped EvidenceStore and Generator layers. Read from the
 * environment here (test code only): AKM_TEST_EVIDENCE (a JSON file of
 * EvidenceInput rows), AKM_TEST_CANDIDATE (a JSON file of CandidateFile[]),
 * AKM_TEST_DELAY_MS (how long each generation takes), AKM_TEST_CALLS (a file
 * that gets one line per generator call).
 * Usage: node <bundle> <akm arguments…>
 */
import * as fs from "node:fs"
import { Effect, Layer } from "effect"
import { runCli } from "../../src/cli/main.js"
import type { EvidenceInput } from "../../src/domain/Evidence.js"
import { Generator, type CandidateFile } from "../../src/services/Generator.js"
import { evidenceMemory } from "./improveLayers.js"

const read = <A>(file: string | undefined, fallback: A): A => (file === undefined || !fs.existsSync(file) ? fallback : (JSON.parse(fs.readFileSync(file, "utf8")) as A))

const evidence = evidenceMemory(read<ReadonlyArray<EvidenceInput>>(process.env["AKM_TEST_EVIDENCE"], []))
const generator = Layer.succeed(Generator, Generator.of({
  id: "scripted:cli-test",
  available: true,
  generate: () =>
    Effect.gen(function* () {
      const calls = process.env["AKM_TEST_CALLS"]
      if (calls !== undefined) fs.appendFileSync(calls, `${process.pid}\n`)
      yield* Effect.sleep(Number(process.env["AKM_TEST_DELAY_MS"] ?? "0"))
      return { _tag: "Candidates" as const, files: read<ReadonlyArray<CandidateFile>>(process.env["AKM_TEST_CANDIDATE"], []), usage: { inputTokens: 10, outputTokens: 5 }, cached: false }
    })
}))

runCli(process.argv.slice(2), { improve: Layer.merge(evidence, generator) }).then(
  (code) => {
    process.exitCode = code
  },
  (error: unknown) => {
    process.stderr.write(`${String(error)}\n`)
    process.exitCode = 70
  }
)
