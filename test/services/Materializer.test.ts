import * as fs from "node:fs"
import * as os from "node:os"
import * as path from "node:path"
import { Effect, Layer } from "effect"
import { workspacePaths } from "../../src/domain/Paths.js"
import { makeWorkspaceConfig } from "../../src/layers/fs/WorkspaceConfigFile.js"
import { ProgressSilent } from "../../src/layers/fs/ProgressTerminal.js"
import { MaterializerLive } from "../../src/layers/materializers/MaterializerLive.js"
import { Materializer } from "../../src/services/Materializer.js"
import { WorkspaceConfig } from "../../src/services/WorkspaceConfig.js"
import { makeGitRepo } from "../support/gitRepo.js"
import { html, startServer } from "../support/httpTestServer.js"
import { packageTarball, startNpmRegistry } from "../support/npmRegistry.js"
import { materializerContract, type MaterializerFixture } from "./Materializer.contract.js"

// Every source kind through the one MaterializerLive layer, on real local sources.

const workspace = (configYaml = "") => {
  const root = fs.realpathSync(fs.mkdtempSync(path.join(process.env.AKM_TEST_WORKER_DIR ?? os.tmpdir(), "akm-mat-")))
  const paths = workspacePaths({}, root, path.join, { configDir: path.join(root, "config"), dataDir: path.join(root, "data"), cacheDir: path.join(root, "cache") })
  fs.mkdirSync(paths.configDir, { recursive: true })
  fs.writeFileSync(paths.configFile, configYaml)
  const layer = MaterializerLive.pipe(Layer.provide(Layer.merge(Layer.succeed(WorkspaceConfig, makeWorkspaceConfig(paths)), ProgressSilent)))
  const materializer = Effect.runSync(Effect.provide(Materializer, layer))
  return { root, paths, materializer }
}

materializerContract("filesystem", async () => {
  const ws = workspace()
  const folder = path.join(ws.root, "notes")
  fs.mkdirSync(folder)
  fs.writeFileSync(path.join(folder, "a.md"), "# A\nfirst\n")
  let text = "first"
  return {
    materializer: ws.materializer,
    source: { kind: "filesystem", path: folder },
    probe: () => ({ file: "a.md", text }),
    change: async () => {
      text = "second"
      fs.writeFileSync(path.join(folder, "a.md"), "# A\nsecond\n")
    },
    breakSource: async () => {
      fs.renameSync(folder, `${folder}-gone`)
    },
    repair: async () => {
      fs.renameSync(`${folder}-gone`, folder)
    },
    cached: false,
    sourcesDir: ws.paths.sourcesDir,
    cleanup: async () => fs.rmSync(ws.root, { recursive: true, force: true })
  } satisfies MaterializerFixture
})

materializerContract("git (local repository)", async () => {
  const ws = workspace()
  const home = path.join(ws.root, "home")
  fs.mkdirSync(home)
  const repo = makeGitRepo(path.join(ws.root, "repo"), home, { "a.md": "# A\nfirst\n" })
  let text = "first"
  return {
    materializer: ws.materializer,
    source: { kind: "git", url: `file://${repo.dir}` },
    probe: () => ({ file: "a.md", text }),
    change: async () => {
      text = "second"
      repo.commit({ "a.md": "# A\nsecond\n" })
    },
    breakSource: async () => {
      fs.rmSync(repo.dir, { recursive: true, force: true })
    },
    cached: true,
    sourcesDir: ws.paths.sourcesDir,
    cleanup: async () => fs.rmSync(ws.root, { recursive: true, force: true })
  } satisfies MaterializerFixture
})

materializerContract("npm (local registry)", async () => {
  const registry = await startNpmRegistry()
  const ws = workspace(`npm:\n  registry: ${registry.url}\nwebsite:\n  allowHosts: ["127.0.0.1"]\n`)
  registry.publish("kb", "1.0.0", packageTarball({ "package.json": JSON.stringify({ name: "kb", version: "1.0.0" }), "a.md": "# A\nfirst\n" }))
  let text = "first"
  return {
    materializer: ws.materializer,
    source: { kind: "npm", package: "kb", version: "^1" },
    probe: () => ({ file: "a.md", text }),
    change: async () => {
      text = "second"
      registry.publish("kb", "1.1.0", packageTarball({ "package.json": JSON.stringify({ name: "kb", version: "1.1.0" }), "a.md": "# A\nsecond\n" }))
    },
    breakSource: async () => {
      await registry.close()
    },
    cached: true,
    sourcesDir: ws.paths.sourcesDir,
    cleanup: async () => {
      await registry.close().catch(() => undefined)
      fs.rmSync(ws.root, { recursive: true, force: true })
    }
  } satisfies MaterializerFixture
})

materializerContract("website (local server, allowed by website.allowHosts)", async () => {
  let body = "<html><head><title>A</title></head><body><main><h1>A</h1><p>first page text</p></main></body></html>"
  let text = "first page text"
  const server = await startServer({ "/robots.txt": (_q, s) => void s.writeHead(404).end(), "/": (q, s) => html(body)(q, s) })
  const ws = workspace(`website:\n  allowHosts: ["127.0.0.1"]\n`)
  return {
    materializer: ws.materializer,
    source: { kind: "website", url: `${server.url}/`, allowInsecure: true },
    probe: () => ({ file: "index.md", text }),
    change: async () => {
      text = "second page text"
      body = body.replace("first page text", "second page text")
    },
    breakSource: async () => {
      await server.close()
    },
    cached: true,
    sourcesDir: ws.paths.sourcesDir,
    cleanup: async () => {
      await server.close().catch(() => undefined)
      fs.rmSync(ws.root, { recursive: true, force: true })
    }
  } satisfies MaterializerFixture
})
