import { describe, expect, it } from "@effect/vitest"
import { createServer } from "node:net"
import { Effect, Exit, Layer, Redacted } from "effect"
import { reportError } from "../../src/cli/exitCodes.js"
import { WorkspaceUnavailable } from "../../src/domain/Errors.js"
import { redact, trustedText } from "../../src/domain/Redaction.js"
import { describeUrl } from "../../src/layers/postgres/client.js"
import { pgStateDbAt } from "../../src/layers/postgres/PgStateDb.js"
import { StateStorePg } from "../../src/layers/postgres/StateStorePg.js"
import { StateStore } from "../../src/services/StateStore.js"

/** A port on 127.0.0.1 that nothing listens on (bound, then released). */
const closedPort = Effect.promise(() =>
  new Promise<number>((resolve) => {
    const server = createServer()
    server.listen(0, "127.0.0.1", () => {
      const address = server.address() as { port: number }
      server.close(() => resolve(address.port))
    })
  }))

const PASSWORD = "pw-8c1f7e2a9d"

describe("PostgreSQL connection (no server needed)", () => {
  it("describeUrl names the server without user, password or options", () => {
    expect(describeUrl(Redacted.make(`postgres://akm:${PASSWORD}@db.internal:6432/team?sslmode=require`))).toBe("postgres://db.internal:6432/team")
    expect(describeUrl(Redacted.make("not a url"))).not.toContain("not a url")
  })

  it.live("an unreachable server is a typed error after a bounded retry: database_unreachable (78), no password anywhere, no crash", () =>
    Effect.gen(function* () {
      const port = yield* closedPort
      const url = Redacted.make(`postgres://akm:${PASSWORD}@127.0.0.1:${port}/akm`)
      const started = Date.now()
      const exit = yield* Effect.exit(Effect.flatMap(StateStore, (store) => store.appendEvent("x", trustedText("y"))).pipe(
        Effect.provide(StateStorePg.pipe(Layer.provide(pgStateDbAt(url))))
      ))
      const elapsed = Date.now() - started
      expect(Exit.isFailure(exit)).toBe(true)
      const error = Exit.isFailure(exit) ? exit.cause._tag === "Fail" ? exit.cause.error : undefined : undefined
      expect(error).toBeInstanceOf(WorkspaceUnavailable)
      expect((error as WorkspaceUnavailable).unreachable).toEqual({ server: `postgres://127.0.0.1:${port}/akm` })
      // Retried (several attempts with backoff), yet bounded.
      expect(elapsed).toBeGreaterThan(300)
      expect(elapsed).toBeLessThan(20_000)
      const report = reportError(error)
      expect(report).toMatchObject({ exit: 78, code: "database_unreachable" })
      expect(report.message).toContain(`127.0.0.1:${port}`)
      expect(report.hint).toContain("storage.url")
      expect(JSON.stringify([report, error, redact(String(error))])).not.toContain(PASSWORD)
    }))
})
