// The hybrid section (R-SRCH-4, issue 25), opt-in with `--sections hybrid`: embedding a 5,000-item corpus
// through a stub OpenAI-compatible endpoint on 127.0.0.1 (bench/embeddingStub.ts), an index run with every
// vector stored, and in-process search latency with vectors present next to lexical alone and the endpoint down.
import { runStep } from "./driver.mjs"

export const hybridSection = async ({ size, onProgress }) => {
  onProgress("hybrid")
  return runStep("hybrid", { size, queries: 100 })
}

export const hybridRows = (h) => [
  ["measure", "value"],
  [`embed ${h.items} items at index time (${h.dimensions} dimensions, stub endpoint)`, `${h.embed.ms} ms (${h.embed.itemsPerSecond} items/s, ${h.embed.requests} requests)`],
  ["index again, every vector stored", `${h.reindex.ms} ms (${h.reindex.reembedded} items embedded again)`],
  [`search p50 / p95, lexical alone (${h.lexical.queries} queries)`, `${h.lexical.p50Ms} / ${h.lexical.p95Ms} ms`],
  ["search p50 / p95, hybrid (query embedded by the stub)", `${h.hybrid.p50Ms} / ${h.hybrid.p95Ms} ms`],
  [`search p50 / p95, endpoint stopped (${h.endpointDown.queries} queries, lexical fallback)`, `${h.endpointDown.p50Ms} / ${h.endpointDown.p95Ms} ms`]
]
