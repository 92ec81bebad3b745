/**
 * A stand-in for an OpenAI-compatible `/v1/embeddings` endpoint on
 * 127.0.0.1 (R-SRCH-4's deterministic hashing embedder): each word of a text
 * adds ±1 to one of `dimensions` slots chosen by its hash, so texts that share
 * words point the same way and the same text always gets the same vector.
 * Used by test/search/embeddings.test.ts and the bench's hybrid step.
 */
import { createServer, type IncomingMessage, type Server } from "node:http"
import type { AddressInfo } from "node:net"

const fnv = (text: string): number => {
  let h = 0x811c9dc5
  for (let i = 0; i < text.length; i++) h = Math.imul(h ^ text.charCodeAt(i), 0x01000193) >>> 0
  return h
}

/** The stub's vector for a text (not normalised; the client scales it). */
export const hashingVector = (text: string, dimensions: number): ReadonlyArray<number> => {
  const out = new Array<number>(dimensions).fill(0)
  for (const word of text.toLowerCase().match(/[\p{L}\p{N}]+/gu) ?? []) {
    const h = fnv(word.length > 5 ? word.slice(0, 5) : word)
    out[h % dimensions]! += h & 0x80000000 ? -1 : 1
  }
  return out
}

export interface EmbeddingStub {
  /** The API root to configure as `search.embeddings.baseUrl` (`http://127.0.0.1:<port>/v1`). */
  readonly baseUrl: string
  /** Requests served, and the texts embedded, so far. */
  readonly requests: () => number
  readonly inputs: () => number
  /** Authorization headers seen (tests check a key arrives and never leaks elsewhere). */
  readonly authorizations: () => ReadonlyArray<string | undefined>
  /** Makes every later answer wait this long (a slow endpoint). */
  readonly setDelay: (ms: number) => void
  readonly stop: () => Promise<void>
}

const bodyOf = (request: IncomingMessage): Promise<string> =>
  new Promise((resolve, reject) => {
    const chunks: Array<Buffer> = []
    request.on("data", (c: Buffer) => chunks.push(c))
    request.on("end", () => resolve(Buffer.concat(chunks).toString("utf8")))
    request.on("error", reject)
  })

export const startEmbeddingStub = async (dimensions = 64): Promise<EmbeddingStub> => {
  let requests = 0
  let inputs = 0
  let delay = 0
  const authorizations: Array<string | undefined> = []
  const server: Server = createServer((request, response) => {
    void (async () => {
      const body = JSON.parse(await bodyOf(request)) as { input: string | ReadonlyArray<string>; model: string }
      if (request.url !== "/v1/embeddings" || request.method !== "POST") {
        response.writeHead(404).end()
        return
      }
      requests++
      authorizations.push(request.headers.authorization)
      const texts = typeof body.input === "string" ? [body.input] : body.input
      inputs += texts.length
      if (delay > 0) await new Promise((r) => setTimeout(r, delay))
      response.writeHead(200, { "content-type": "application/json" })
      response.end(JSON.stringify({ object: "list", model: body.model, data: texts.map((t, index) => ({ object: "embedding", index, embedding: hashingVector(t, dimensions) })) }))
    })().catch(() => response.writeHead(400).end())
  })
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve))
  const { port } = server.address() as AddressInfo
  return {
    baseUrl: `http://127.0.0.1:${port}/v1`,
    requests: () => requests,
    inputs: () => inputs,
    authorizations: () => authorizations,
    setDelay: (ms) => {
      delay = ms
    },
    stop: () => new Promise((resolve) => {
      server.closeAllConnections()
      server.close(() => resolve())
    })
  }
}
