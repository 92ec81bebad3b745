import * as http from "node:http"
import type { AddressInfo } from "node:net"

/**
 * A model server stub on 127.0.0.1 that speaks the two wire protocols the
 * generators use: OpenAI chat completions (POST …/chat/completions) and
 * Anthropic messages (POST /v1/messages). Each request takes the next
 * scripted reply (the last one repeats); every body received is kept, so a
 * test can count calls and look for a secret that must never arrive.
 */

export type StubReply =
  /** A 200 whose structured answer is `output` (wrapped in the protocol's envelope). */
  | { readonly kind: "answer"; readonly output: unknown; readonly usage?: { readonly input: number; readonly output: number } }
  /** Any status with a raw body. */
  | { readonly kind: "raw"; readonly status: number; readonly body: string }
  /** Headers, then `bytes` of body in 64 KiB chunks (never buffered whole). */
  | { readonly kind: "huge"; readonly bytes: number }
  /** Never answers (a hung server). */
  | { readonly kind: "hang" }
  /** Drops the connection without an answer. */
  | { readonly kind: "drop" }

export interface ModelStub {
  readonly url: string
  /** The request bodies received, in order. */
  readonly bodies: Array<string>
  readonly headers: Array<http.IncomingHttpHeaders>
  readonly paths: Array<string>
  readonly close: () => Promise<void>
}

const chatEnvelope = (output: unknown, usage: { input: number; output: number }) => ({
  id: "chatcmpl-stub",
  object: "chat.completion",
  created: 1_700_000_000,
  model: "stub",
  // Like Ollama: no `refusal`, no `logprobs`.
  choices: [{ index: 0, message: { role: "assistant", content: typeof output === "string" ? output : JSON.stringify(output) }, finish_reason: "stop" }],
  usage: { prompt_tokens: usage.input, completion_tokens: usage.output, total_tokens: usage.input + usage.output }
})

const messagesEnvelope = (output: unknown, usage: { input: number; output: number }) => ({
  id: "msg_stub",
  type: "message",
  role: "assistant",
  model: "stub",
  content: typeof output === "string"
    ? [{ type: "text", text: output }]
    : [{ type: "tool_use", id: "toolu_stub", name: "candidate_files", input: output }],
  stop_reason: typeof output === "string" ? "end_turn" : "tool_use",
  stop_sequence: null,
  usage: { input_tokens: usage.input, output_tokens: usage.output }
})

export const startModelStub = (replies: ReadonlyArray<StubReply>): Promise<ModelStub> => {
  const bodies: Array<string> = []
  const headers: Array<http.IncomingHttpHeaders> = []
  const paths: Array<string> = []
  let served = 0
  const server = http.createServer((req, res) => {
    const chunks: Array<Buffer> = []
    req.on("data", (c: Buffer) => chunks.push(c))
    req.on("end", () => {
      bodies.push(Buffer.concat(chunks).toString("utf8"))
      headers.push(req.headers)
      paths.push(req.url ?? "")
      const reply = replies[Math.min(served, replies.length - 1)]
      served += 1
      const anthropic = (req.url ?? "").endsWith("/v1/messages")
      if (reply === undefined || reply.kind === "hang") return
      if (reply.kind === "drop") return req.socket.destroy()
      if (reply.kind === "raw") return void res.writeHead(reply.status, { "content-type": "application/json" }).end(reply.body)
      if (reply.kind === "huge") {
        res.writeHead(200, { "content-type": "application/json" })
        const chunk = Buffer.alloc(64 * 1024, 0x61)
        let sent = 0
        const pump = (): void => {
          while (sent < reply.bytes) {
            sent += chunk.length
            if (!res.write(chunk)) return void res.once("drain", pump)
          }
          res.end()
        }
        res.on("error", () => undefined)
        return pump()
      }
      const usage = reply.usage ?? { input: 120, output: 30 }
      res.writeHead(200, { "content-type": "application/json" }).end(JSON.stringify(anthropic ? messagesEnvelope(reply.output, usage) : chatEnvelope(reply.output, usage)))
    })
  })
  return new Promise((resolve) => {
    server.listen(0, "127.0.0.1", () => {
      const { port } = server.address() as AddressInfo
      resolve({
        url: `http://127.0.0.1:${port}`,
        bodies,
        headers,
        paths,
        close: () =>
          new Promise<void>((done) => {
            server.closeAllConnections()
            server.close(() => done())
          })
      })
    })
  })
}
