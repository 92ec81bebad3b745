import { Client } from "@modelcontextprotocol/sdk/client/index.js"
import { StdioClientTransport } from "@modelcontextprotocol/sdk/client/stdio.js"
import { StreamableHTTPClientTransport } from "@modelcontextprotocol/sdk/client/streamableHttp.js"
import { spawn, type ChildProcess } from "node:child_process"
import { existsSync, mkdirSync, writeFileSync } from "node:fs"
import { join } from "node:path"
import { afterAll, beforeAll, describe, expect, it } from "vitest"
import { makeWorkspace, repoRoot } from "../support/cli.js"

// `akm mcp` over a real stdio pipe with @modelcontextprotocol/sdk's own client (issue 24, spec 09 §4).

const CANARY = "CANARY_5b1e_mcp_secret_never_served"
const GITHUB_TOKEN = `ghp_${"5b1eMcpCanary".repeat(3)}`

interface ToolResult {
  readonly isError?: boolean
  readonly content: ReadonlyArray<{ readonly type: string; readonly text?: string }>
  readonly structuredContent?: Record<string, unknown>
}

const TOOLS = ["search", "show", "curate", "remember", "feedback", "lint", "proposal_list", "proposal_show", "proposal_accept", "proposal_reject", "ledger_add"]

describe("akm mcp (stdio)", () => {
  const workspace = makeWorkspace()
  let client: Client
  let transport: StdioClientTransport
  let notes = ""
  const stderr: Array<string> = []
  const transportErrors: Array<unknown> = []
  /** Every tool result and resource the server sent, for the canary check. */
  const served: Array<string> = []

  const call = async (name: string, args: Record<string, unknown>): Promise<ToolResult> => {
    const result = (await client.callTool({ name, arguments: args })) as unknown as ToolResult
    served.push(JSON.stringify(result))
    return result
  }
  const ok = async (name: string, args: Record<string, unknown>): Promise<Record<string, unknown>> => {
    const result = await call(name, args)
    expect(result.isError, result.content[0]?.text).toBe(false)
    // The text is the JSON of the structured content: clients that read only text get the same answer.
    expect(JSON.parse(result.content[0]!.text!)).toEqual(result.structuredContent)
    return result.structuredContent!
  }

  beforeAll(async () => {
    notes = workspace.folder("notes", {
      "index.md": "# Notes\n",
      "deploy.md": "---\ntype: guide\ntitle: Deploy with docker compose\n---\n# Deploy\n\nRun docker compose up on the staging host.\n\n## Rollback\n\nRedeploy the previous tag.\n",
      "guides/setup.md": "---\ntype: guide\ntitle: Setup\n---\n# Setup\n\nInstall the toolchain.\n"
    })
    mkdirSync(join(notes, "env"), { recursive: true })
    expect((await workspace.run(["bundle", "add", notes, "--name", "notes", "--writable"])).code).toBe(0)
    expect((await workspace.run(["config", "set", "defaultBundle", "notes"])).code).toBe(0)
    // Every change waits for review, so a remember becomes a pending proposal.
    expect((await workspace.run(["config", "set", "policy.autoApply", "[]"])).code).toBe(0)
    expect((await workspace.run(["index"])).code).toBe(0)
    transport = new StdioClientTransport({ command: process.execPath, args: [join(repoRoot, "bin/akm.js"), "mcp"], env: { ...workspace.env }, cwd: workspace.root, stderr: "pipe" })
    transport.stderr?.on("data", (chunk: Buffer) => stderr.push(chunk.toString()))
    transport.onerror = (error) => transportErrors.push(error)
    client = new Client({ name: "akm-test", version: "1.0.0" })
    await client.connect(transport)
  }, 60_000)

  afterAll(async () => {
    await client?.close()
    workspace.cleanup()
  })

  it("initializes and lists every tool, annotated, with effect/Schema input schemas", async () => {
    expect(client.getServerVersion()?.name).toBe("akm")
    expect(client.getServerCapabilities()?.tools).toBeDefined()
    expect(client.getServerCapabilities()?.resources).toBeDefined()
    const { tools } = await client.listTools()
    expect(tools.map((t) => t.name).sort()).toEqual([...TOOLS].sort())
    for (const tool of tools) {
      expect(tool.annotations, tool.name).toMatchObject({ readOnlyHint: expect.any(Boolean), destructiveHint: expect.any(Boolean), idempotentHint: expect.any(Boolean), openWorldHint: false })
      expect(tool.inputSchema.type).toBe("object")
      expect(tool.description).toBeTruthy()
    }
    const byName = new Map(tools.map((t) => [t.name, t]))
    expect(byName.get("search")!.annotations).toMatchObject({ readOnlyHint: true, destructiveHint: false, idempotentHint: true })
    expect(byName.get("search")!.inputSchema.required).toEqual(["query"])
    expect(byName.get("proposal_accept")!.annotations).toMatchObject({ readOnlyHint: false, destructiveHint: true })
    expect(byName.get("remember")!.annotations).toMatchObject({ readOnlyHint: false, destructiveHint: false })
    expect(byName.get("feedback")!.inputSchema.properties).toMatchObject({ polarity: { enum: ["positive", "negative"] } })
  })

  it("search, show, curate and lint answer as the CLI's JSON does", async () => {
    const found = await ok("search", { query: "docker compose" })
    expect((found.hits as Array<{ ref: string }>)[0]!.ref).toBe("notes//deploy")
    const cli = (await workspace.run(["search", "docker compose", "--no-track"])).json()
    expect((found.hits as Array<{ ref: string }>).map((h) => h.ref)).toEqual(cli.hits.map((h: { ref: string }) => h.ref))
    const shown = await ok("show", { ref: "notes//deploy#rollback" })
    expect(shown.content).toContain("Redeploy the previous tag.")
    const card = await ok("show", { ref: "notes//deploy", level: "card" })
    expect(card.content).toBeUndefined()
    const curated = await ok("curate", { task: "deploy with docker compose", budget: 2000 })
    expect(JSON.stringify(curated)).toContain("notes//deploy")
    const linted = await ok("lint", { bundle: "notes" })
    expect(linted.ok).toBe(true)
  })

  it("a missing ref and a bad argument are tool errors with the CLI's message and hint; the server keeps serving", async () => {
    const missing = await call("show", { ref: "notes//no-such-item" })
    expect(missing.isError).toBe(true)
    const cli = (await workspace.run(["show", "notes//no-such-item"])).error().error
    expect(missing.structuredContent).toEqual({ ok: false, error: { code: cli.code, message: cli.message, hint: cli.hint } })
    const bad = await call("search", { query: 5 })
    expect(bad.isError).toBe(true)
    expect(bad.structuredContent).toMatchObject({ error: { code: "usage", message: expect.stringContaining("query") } })
    const outOfRange = await call("search", { query: "x", limit: 1000 })
    expect(outOfRange.isError).toBe(true)
    expect(JSON.stringify(outOfRange)).not.toMatch(/\n\s+at /)
    const negative = await call("feedback", { ref: "notes//deploy", polarity: "negative" })
    expect(negative.isError).toBe(true)
    await expect(client.callTool({ name: "no_such_tool", arguments: {} })).rejects.toThrow(/not found/)
    expect((await ok("search", { query: "setup" })).total).toBeGreaterThan(0)
  })

  it("remember becomes a pending proposal under the workspace's policy; reject and accept go through proposals", async () => {
    const first = await ok("remember", { text: "Staging needs the VPN. Ask ops for access.", tags: ["staging"] })
    expect(first.status).toBe("pending")
    expect(existsSync(first.path as string)).toBe(false)
    const listed = await ok("proposal_list", { status: "pending" })
    expect((listed.proposals as Array<{ id: string }>).map((p) => p.id)).toContain(first.id)
    const shownProposal = await ok("proposal_show", { id: (first.id as string).slice(0, 8) })
    expect(shownProposal.id).toBe(first.id)
    const rejected = await ok("proposal_reject", { id: first.id, reason: "duplicate" })
    expect(rejected.status).toBe("rejected")
    const second = await ok("remember", { text: "Deploys freeze on Fridays." })
    const accepted = await ok("proposal_accept", { id: second.id })
    expect(accepted.status).toBe("accepted")
    expect(existsSync(second.path as string)).toBe(true)
    const again = await call("proposal_accept", { id: second.id })
    expect(again.isError).toBe(true)
    expect(again.structuredContent).toMatchObject({ error: { code: "conflict" } })
    // Written through the server, found by the server's next search.
    const hits = (await ok("search", { query: "freeze fridays" })).hits as Array<{ ref: string }>
    expect(hits.map((h) => h.ref)).toContain(second.ref)
  })

  it("feedback and ledger_add record through the same programs", async () => {
    const fed = await ok("feedback", { ref: "notes//deploy", polarity: "positive" })
    expect(fed.ref).toBe("notes//deploy")
    const incomplete = await call("ledger_add", { kind: "decision", title: "Use compose" })
    expect(incomplete.isError).toBe(true)
    expect(incomplete.structuredContent).toMatchObject({ error: { code: "usage", message: expect.stringContaining("decision") } })
  })

  it("reads items as akm:// resources, with a template and completion of bundle names", async () => {
    const { resourceTemplates } = await client.listResourceTemplates()
    expect(resourceTemplates.map((t) => t.uriTemplate)).toEqual(["akm://{bundle}//{id}"])
    const read = await client.readResource({ uri: "akm://notes//guides/setup" })
    served.push(JSON.stringify(read))
    expect(read.contents[0]).toMatchObject({ uri: "akm://notes//guides/setup", mimeType: "text/markdown", text: expect.stringContaining("Install the toolchain.") })
    const completed = await client.complete({ ref: { type: "ref/resource", uri: "akm://{bundle}//{id}" }, argument: { name: "bundle", value: "no" } })
    expect(completed.completion.values).toEqual(["notes"])
    await expect(client.readResource({ uri: "akm://notes//missing" })).rejects.toThrow(/not found/)
  })

  it("a file added, then edited, in a bundle while the server runs is found by the next search", async () => {
    writeFileSync(join(notes, "runbook.md"), "---\ntype: guide\ntitle: Pager runbook\n---\n# Pager\n\nSilence the zebrafish alarm first.\n")
    // The server watches the bundle folders (freshness.ts); the pause only lets the file event land first.
    await new Promise((resolve) => setTimeout(resolve, 100))
    const hits = (await ok("search", { query: "zebrafish" })).hits as Array<{ ref: string }>
    expect(hits.map((h) => h.ref)).toEqual(["notes//runbook"])
    writeFileSync(join(notes, "runbook.md"), "---\ntype: guide\ntitle: Pager runbook\n---\n# Pager\n\nSilence the axolotl alarm first.\n")
    await new Promise((resolve) => setTimeout(resolve, 100))
    expect(((await ok("search", { query: "axolotl" })).hits as Array<{ ref: string }>).map((h) => h.ref)).toEqual(["notes//runbook"])
    expect((await ok("search", { query: "zebrafish" })).total).toBe(0)
  })

  it("serves concurrent calls from one process", async () => {
    const calls = Array.from({ length: 24 }, (_, i) => (i % 3 === 0 ? ok("show", { ref: "notes//deploy", level: "card" }) : ok("search", { query: i % 2 === 0 ? "deploy" : "setup" })))
    const results = await Promise.all(calls)
    expect(results).toHaveLength(24)
  })

  it("never serves a secret value (canary), and stdout carries protocol frames alone", async () => {
    // A value the workspace knows (an akm bundle's env file), and a token any secret scanner knows.
    const created = await workspace.run(["bundle", "create", "mine"])
    expect(created.code, created.stderr).toBe(0)
    const mine = created.json().root as string
    mkdirSync(join(mine, "env"), { recursive: true })
    writeFileSync(join(mine, "env/prod.env"), `# akm:public Production settings\n\nAPI_TOKEN=${CANARY}\n`)
    writeFileSync(join(notes, "leak.md"), `# Leak\n\nThe token is ${CANARY}, the other ${GITHUB_TOKEN} (pasted by mistake).\n`)
    await new Promise((resolve) => setTimeout(resolve, 100))
    expect(((await ok("search", { query: "production settings" })).hits as Array<{ ref: string }>).map((h) => h.ref)).toContain("mine//env/prod")
    await call("search", { query: "pasted by mistake" })
    await call("show", { ref: "mine//env/prod" })
    await call("show", { ref: "notes//leak" })
    await call("remember", { text: `the api token is ${GITHUB_TOKEN}` })
    await call("proposal_list", {})
    for (const uri of ["akm://mine//env/prod", "akm://notes//leak"]) {
      await client.readResource({ uri }).then((r) => served.push(JSON.stringify(r)), (e: Error) => served.push(e.message))
    }
    for (const text of served) {
      expect(text).not.toContain(CANARY)
      expect(text).not.toContain(GITHUB_TOKEN)
    }
    expect(stderr.join("")).not.toContain(CANARY)
    expect(stderr.join("")).not.toContain(GITHUB_TOKEN)
    expect(transportErrors).toEqual([])
  })

  it("warm search round trips take milliseconds", async () => {
    const times: Array<number> = []
    for (let i = 0; i < 60; i++) {
      const started = performance.now()
      await client.callTool({ name: "search", arguments: { query: "deploy docker" } })
      times.push(performance.now() - started)
    }
    times.sort((a, b) => a - b)
    const p50 = times[Math.floor(times.length / 2)]!
    // The bench (npm run bench, section mcp) holds the real target; here only an order of magnitude on a shared machine.
    expect(p50).toBeLessThan(100)
  })
})

describe("akm mcp --http", () => {
  const workspace = makeWorkspace()
  const TOKEN = "test-token-5b1e-http"
  let child: ChildProcess | undefined
  let url: URL
  let stderrText = ""

  beforeAll(async () => {
    const notes = workspace.folder("notes", { "deploy.md": "---\ntype: guide\ntitle: Deploy with docker compose\n---\n# Deploy\n\nRun docker compose up.\n" })
    expect((await workspace.run(["bundle", "add", notes, "--name", "notes"])).code).toBe(0)
    child = spawn(process.execPath, [join(repoRoot, "bin/akm.js"), "mcp", "--http", "--port", "0"], { env: { ...workspace.env, AKM_MCP_TOKEN: TOKEN }, cwd: workspace.root, stdio: ["ignore", "pipe", "pipe"] })
    url = await new Promise<URL>((resolve, reject) => {
      child!.stderr!.on("data", (chunk: Buffer) => {
        stderrText += chunk.toString()
        const found = /listening on (http:\/\/\S+)/.exec(stderrText)
        if (found !== null) resolve(new URL(found[1]!))
      })
      child!.once("exit", (code) => reject(new Error(`akm mcp --http exited ${code}: ${stderrText}`)))
    })
  }, 60_000)

  afterAll(() => {
    child?.kill("SIGKILL")
    workspace.cleanup()
  })

  it("listens on loopback and refuses a request without the bearer token (401)", async () => {
    expect(url.hostname).toBe("127.0.0.1")
    const client = new Client({ name: "akm-test", version: "1.0.0" })
    await expect(client.connect(new StreamableHTTPClientTransport(url))).rejects.toThrow(/401|unauthorized/i)
    const wrong = await fetch(url, { method: "POST", headers: { "content-type": "application/json", authorization: "Bearer nope" }, body: "{}" })
    expect(wrong.status).toBe(401)
  })

  it("serves the same tools over streamable HTTP with the token", async () => {
    const client = new Client({ name: "akm-test", version: "1.0.0" })
    await client.connect(new StreamableHTTPClientTransport(url, { requestInit: { headers: { Authorization: `Bearer ${TOKEN}` } } }))
    try {
      expect((await client.listTools()).tools.map((t) => t.name).sort()).toEqual([...TOOLS].sort())
      const found = (await client.callTool({ name: "search", arguments: { query: "docker compose" } })) as unknown as ToolResult
      expect((found.structuredContent!.hits as Array<{ ref: string }>)[0]!.ref).toBe("notes//deploy")
      const missing = (await client.callTool({ name: "show", arguments: { ref: "notes//nope" } })) as unknown as ToolResult
      expect(missing.isError).toBe(true)
      expect(missing.structuredContent).toMatchObject({ error: { code: "not_found" } })
      expect(stderrText).not.toContain(TOKEN)
    } finally {
      await client.close()
    }
  })

  it("refuses a non-loopback host without --allow-remote, and --allow-remote without a token", async () => {
    const refused = await workspace.run(["mcp", "--http", "--host", "0.0.0.0", "--port", "0"])
    expect(refused.code).toBe(2)
    expect(refused.stderr).toContain("--allow-remote")
    const tokenless = await workspace.run(["mcp", "--http", "--host", "0.0.0.0", "--port", "0", "--allow-remote"])
    expect(tokenless.code).toBe(2)
    expect(tokenless.stderr).toContain("AKM_MCP_TOKEN")
  })

  it("shuts down on SIGTERM", async () => {
    const exited = new Promise<number | null>((resolve) => child!.once("exit", (code) => resolve(code)))
    child!.kill("SIGTERM")
    expect(await exited).toBe(143)
    child = undefined
  })
})
