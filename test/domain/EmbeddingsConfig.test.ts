import { Either, ParseResult, Schema } from "effect"
import { describe, expect, it } from "vitest"
import { AkmConfig } from "../../src/domain/Config.js"
import { embeddingSpace, embeddingsUrl } from "../../src/domain/EmbeddingsConfig.js"

const decode = (embeddings: unknown) => Schema.decodeUnknownEither(AkmConfig)({ search: { embeddings } })

describe("search.embeddings (R-SRCH-4)", () => {
  it("takes an API root, a model, optional dimensions and a credential reference", () => {
    const ok = decode({ baseUrl: "http://127.0.0.1:11434/v1", model: "nomic-embed-text", dimensions: 768, apiKey: "env:OPENAI_API_KEY" })
    expect(Either.isRight(ok)).toBe(true)
    expect(Either.isRight(decode({ baseUrl: "https://api.openai.com/v1", model: "text-embedding-3-small", apiKey: "secret:work//secrets/openai" }))).toBe(true)
  })

  it("refuses a literal key, a URL that is not http(s) and a missing model, saying what is expected", () => {
    const literal = decode({ baseUrl: "http://127.0.0.1:8080/v1", model: "m", apiKey: "sk-live-123" })
    // What the config loader reports (WorkspaceConfigFile.ts): the first issue's message, which never echoes the value.
    const issue = Either.isLeft(literal) ? ParseResult.ArrayFormatter.formatErrorSync(literal.left)[0] : undefined
    expect(issue).toMatchObject({ path: ["search", "embeddings", "apiKey"], message: "a credential reference: env:VAR or secret:<ref>, never the key itself" })
    expect(Either.isLeft(decode({ baseUrl: "file:///tmp/x", model: "m" }))).toBe(true)
    expect(Either.isLeft(decode({ baseUrl: "http://127.0.0.1:8080/v1" }))).toBe(true)
  })

  it("posts to <baseUrl>/embeddings and keys vectors by model and size", () => {
    expect(embeddingsUrl({ baseUrl: "http://127.0.0.1:11434/v1/", model: "m" })).toBe("http://127.0.0.1:11434/v1/embeddings")
    expect(embeddingsUrl({ baseUrl: "http://127.0.0.1:8080/v1/embeddings", model: "m" })).toBe("http://127.0.0.1:8080/v1/embeddings")
    expect(embeddingSpace({ baseUrl: "http://x", model: "m", dimensions: 256 })).toBe("m@256")
    expect(embeddingSpace({ baseUrl: "http://x", model: "m" })).toBe("m")
  })
})
