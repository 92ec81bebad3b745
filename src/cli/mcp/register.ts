import * as AiError from "@effect/ai/AiError"
import * as McpSchema from "@effect/ai/McpSchema"
import { McpServer } from "@effect/ai/McpServer"
import * as Tool from "@effect/ai/Tool"
import type * as Toolkit from "@effect/ai/Toolkit"
import { Context, Effect, Layer, Option, ParseResult } from "effect"
import { redact } from "../../domain/Redaction.js"
import { jsonOf } from "./resultJson.js"
import { ToolFailure } from "./tools.js"

/** The CLI's JSON error shape (`{ ok: false, error }`), as the tool result's text and structured content. */
const errorResult = (failure: { readonly code: string; readonly message: string; readonly hint: string }) => {
  const body = { ok: false, error: { code: failure.code, message: failure.message, hint: failure.hint } }
  return new McpSchema.CallToolResult({ isError: true, structuredContent: body, content: [{ type: "text", text: JSON.stringify(body) }] }, true)
}

// Results are built here, one text block and plain JSON, so valid by construction: the class's own check on
// construction (a union per block, a third of a warm search's schema work) is skipped (docs/decisions/0040-search-latency.md).
const successResult = (value: unknown) =>
  new McpSchema.CallToolResult({
    isError: false,
    // MCP's structured content is an object; a bare list or value travels as text only.
    structuredContent: typeof value === "object" && value !== null && !Array.isArray(value) ? value : undefined,
    content: [{ type: "text", text: jsonOf(value) }]
  }, true)

/**
 * Arguments that do not match a tool's schema: a usage error naming the tool
 * and what was wrong, like a bad command line. The values quoted by the parse
 * message pass the redactor's patterns.
 */
const badArguments = (name: string, error: AiError.AiError) => {
  const cause = "cause" in error ? error.cause : undefined
  const detail = ParseResult.isParseError(cause)
    ? ParseResult.ArrayFormatter.formatErrorSync(cause).map((issue) => `${issue.path.length === 0 ? "arguments" : issue.path.join(".")}: ${issue.message}`).join("; ")
    : error.message
  return errorResult({ code: "usage", message: redact(`invalid arguments for tool '${name}': ${detail}`), hint: "the tool's inputSchema in tools/list says which arguments it takes" })
}

/**
 * Registers a toolkit's tools with the MCP server. @effect/ai's own
 * McpServer.toolkit returns a failure as the JSON of the error object; akm
 * returns the CLI's report instead (code, message, hint) and never a stack or
 * the raw arguments (docs/decisions/0021-mcp-server.md).
 */
export const registerTools = <Tools extends Record<string, Tool.Any>>(toolkit: Toolkit.Toolkit<Tools>) =>
  Layer.effectDiscard(
    Effect.gen(function* () {
      const server = yield* McpServer
      const built = yield* toolkit
      const context = yield* Effect.context<never>()
      for (const tool of Object.values(built.tools) as ReadonlyArray<Tool.Any>) {
        const annotations = tool.annotations
        yield* server.addTool({
          tool: new McpSchema.Tool({
            name: tool.name,
            description: tool.description,
            inputSchema: Tool.getJsonSchema(tool as never),
            annotations: new McpSchema.ToolAnnotations({
              ...Option.match(Context.getOption(annotations, Tool.Title), { onNone: () => ({}), onSome: (title) => ({ title }) }),
              readOnlyHint: Context.get(annotations, Tool.Readonly),
              destructiveHint: Context.get(annotations, Tool.Destructive),
              idempotentHint: Context.get(annotations, Tool.Idempotent),
              openWorldHint: Context.get(annotations, Tool.OpenWorld)
            })
          }),
          handle: (payload) =>
            (built.handle(tool.name as keyof Tools, (payload ?? {}) as never) as Effect.Effect<{ readonly encodedResult: unknown }, unknown>).pipe(
              Effect.provide(context),
              Effect.match({
                onSuccess: (result) => successResult(result.encodedResult),
                onFailure: (error) =>
                  error instanceof ToolFailure
                    ? errorResult(error)
                    : AiError.isAiError(error)
                    ? badArguments(tool.name, error)
                    : errorResult({ code: "internal", message: "the tool failed unexpectedly", hint: "this is a bug in akm; rerun `akm mcp --verbose` and see stderr" })
              }),
              // A defect in a handler is one failed call, never a crashed server.
              Effect.catchAllDefect(() => Effect.succeed(errorResult({ code: "internal", message: "the tool failed unexpectedly", hint: "this is a bug in akm; please report it" })))
            )
        })
      }
    })
  )
