// Builds dist/ with esbuild (spec 00 §4.1). Start-up is paid on every agent
// call, so the CLI is built for it; the numbers behind every choice here are in
// docs/decisions/0002-start-up.md.
//
//   dist/cli/main.cjs        the CLI: one minified CommonJS bundle exporting runCli.
//                            bin/akm.js compiles it with vm.Script and a V8 code
//                            cache (Node 20 caches no ESM compilation).
//   dist/cli/search.cjs      the `akm search` fast path (src/cli/fast/search.ts,
//                            exporting runSearch): no CLI framework, no adapters,
//                            no @effect/sql, a third of main.cjs; bin/akm.js tries it first.
//   dist/cli/show.cjs, curate.cjs, info.cjs, bundle-list.cjs, health.cjs
//                            the fast paths of the other read commands (FAST_BUNDLES below,
//                            docs/decisions/0013-fast-read-commands.md), built the same way.
//   dist/cli/index.cjs       `akm index` when nothing changed (docs/decisions/0045-noop-and-startup.md).
//   dist/cli/complete.cjs    `akm __complete` for the shell completion scripts (src/cli/completeRun.ts),
//                            with dist/cli/command-tree.json, the command tree read from main's descriptors.
//   dist/cli/<name>-….cache  their code caches, made by running representative
//                            commands once here (see warmCodeCache below).
//   dist/cli/mcp.cjs         `akm mcp`, the MCP server on @effect/ai (src/cli/mcp/start.ts), required by
//                            main.cjs's mcp command only, so no other command loads it.
//   dist/cli/projector-worker.cjs  the worker thread that projects a large bundle's items in parallel.
//   dist/lib/index.js        the library (package "main"): ESM with code splitting.
//   dist/cli/help.json       every command's help text (main.ts helpTexts), printed by bin/akm.js
//                            for `akm [command…] --help` without loading the CLI.
//   dist/version.json        read by the --version fast path in bin/akm.js.
//
// better-sqlite3 stays external (a native addon). dist/ is assembled in a
// staging folder and swapped in, so a CLI started meanwhile by another process
// finds either the old build or the new one, never half of one.
import { build } from "esbuild"
import { spawnSync } from "node:child_process"
import { createHash } from "node:crypto"
import { existsSync, mkdirSync, mkdtempSync, readFileSync, renameSync, rmSync, writeFileSync } from "node:fs"
import { readFile } from "node:fs/promises"
import { tmpdir } from "node:os"
import { createRequire } from "node:module"
import { join } from "node:path"
import { fileURLToPath } from "node:url"

const root = fileURLToPath(new URL("..", import.meta.url))
const dist = join(root, "dist")
const staging = join(root, `dist.build-${process.pid}`)
const pkg = JSON.parse(readFileSync(join(root, "package.json"), "utf8"))

/** What effect's barrel exports besides its modules (all from effect/Function). */
const EFFECT_FUNCTIONS = new Set(["absurd", "flow", "hole", "identity", "pipe", "unsafeCoerce"])

/**
 * Rewrites `import { Effect, Schema } from "effect"` in src/ to
 * `import * as Effect from "effect/Effect"; import * as Schema from "effect/Schema"`.
 * The barrel re-exports every module as a namespace, so the two mean the same,
 * but through the barrel esbuild keeps every module it names (fast-check,
 * Cron, DateTime …), and through the paths only what is used: 20 % less code
 * to load and initialise on every call (docs/decisions/0002-start-up.md).
 * Type-only imports are left alone; the sources keep the barrel, which reads better.
 */
const effectPathImports = {
  name: "effect-path-imports",
  setup(build) {
    build.onLoad({ filter: /[\\/]src[\\/].*\.ts$/ }, async (args) => {
      if (args.path.includes("node_modules")) return undefined
      const source = await readFile(args.path, "utf8")
      const contents = source.replace(/import\s+(type\s+)?\{([^}]*)\}\s+from\s+"effect"/g, (statement, typeOnly, names) => {
        if (typeOnly !== undefined) return statement
        return names
          .split(",")
          .map((name) => name.trim())
          .filter((name) => name !== "" && !name.startsWith("type "))
          .map((specifier) => {
            const [name, alias = name] = specifier.split(/\s+as\s+/)
            return EFFECT_FUNCTIONS.has(name) ? `import { ${specifier} } from "effect/Function"` : `import * as ${alias} from "effect/${name}"`
          })
          .join("; ")
      })
      return { contents, loader: "ts" }
    })
  }
}

const common = {
  bundle: true,
  platform: "node",
  target: "node20",
  // gpt-tokenizer's ranks (2.7 MB) would triple the CLI bundle that every call loads; the Tokenizer layer imports them on first count.
  // The fetch/crawl/extract libraries are only needed by bundle add/update of git, npm and website sources: loaded on use.
  external: ["better-sqlite3", "gpt-tokenizer", "undici", "tar", "linkedom", "turndown", "@mozilla/readability"],
  minify: true,
  legalComments: "none",
  logLevel: "warning",
  plugins: [effectPathImports]
}

/**
 * The start-up fast paths, one small bundle each (src/cli/fast/,
 * docs/decisions/0002-start-up.md and 0013-fast-read-commands.md): bin/akm.js
 * tries `run` of the bundle named for the command before the full CLI.
 * `warmup` are the command lines that make its code cache (in a process of
 * its own, after the full CLI's warm-up).
 */
const FAST_BUNDLES = [
  {
    name: "search",
    source: "search",
    run: "runSearch",
    warmup: [
      ["search", "hello", "--format", "json"],
      ["search", "hello", "note", "--format", "text", "--no-track"],
      ["search", "notes//", "--limit", "5", "--format", "json"],
      // After `--` (bench/startup.mjs times both shapes).
      ["search", "--format", "json", "--", "say hello"]
    ]
  },
  {
    name: "show",
    source: "show",
    run: "runShow",
    warmup: [
      ["show", "notes//hello", "--format", "json"],
      ["show", "notes//hello", "--level", "card", "--format", "text", "--no-track"],
      ["show", "hello", "--level", "outline", "--format", "json"],
      ["show", "notes//hello#hello", "--format", "text"]
    ]
  },
  {
    name: "curate",
    source: "curate",
    run: "runCurate",
    warmup: [
      ["curate", "say hello", "--format", "json"],
      ["curate", "a note for the warm-up", "--format", "text", "--no-track"]
    ]
  },
  { name: "info", source: "info", run: "runInfo", warmup: [["info", "--format", "json"], ["info", "--format", "text"]] },
  { name: "bundle-list", source: "bundleList", run: "runBundleList", warmup: [["bundle", "list", "--format", "json"], ["bundle", "list", "--format", "text"]] },
  { name: "health", source: "health", run: "runHealth", warmup: [["health", "--format", "json"], ["health", "--format", "text"]] },
  // A no-op reindex (docs/decisions/0045-noop-and-startup.md); the full CLI's warm-up indexed the workspace first.
  { name: "index", source: "index", run: "runIndex", warmup: [["index", "--format", "json"], ["index", "--format", "text"], ["index", "--bundle", "notes", "--format", "json"]] }
]

/**
 * node:crypto costs 1.5–4 ms of CPU to load (its JavaScript is not in Node's
 * start-up snapshot), and a read command loaded it at start only because the
 * modules it carries (the redactor, leases, @effect/platform's FileSystem)
 * import hash and random functions it may never call. In the fast bundles
 * node:crypto is a module of getters that loads the real one on first use
 * (docs/decisions/0055-read-command-startup.md); the names are node:crypto's own.
 */
const lazyCrypto = {
  name: "lazy-node-crypto",
  setup(build) {
    build.onResolve({ filter: /^(node:)?crypto$/ }, (args) =>
      args.namespace === "lazy-crypto" ? { path: "node:crypto", external: true } : { path: "crypto", namespace: "lazy-crypto" })
    build.onLoad({ filter: /.*/, namespace: "lazy-crypto" }, () => {
      const names = Object.keys(createRequire(import.meta.url)("node:crypto"))
      const contents = [
        'let loaded; const crypto = () => (loaded ??= require("node:crypto"));',
        `for (const name of ${JSON.stringify(names)}) Object.defineProperty(exports, name, { enumerable: true, get: () => crypto()[name] });`
      ].join("\n")
      return { contents, loader: "js" }
    })
  }
}

/**
 * The fast bundles carry better-sqlite3's JavaScript (the addon is loaded by path, src/layers/sqlite/addon.ts):
 * Node's loader would otherwise resolve and compile its ten files on every call, without a code cache.
 */
const FAST_EXTERNAL = [...common.external.filter((name) => name !== "better-sqlite3"), "bindings"]

/**
 * A CLI bundle starts with `// akm build <id>`, a hash of its code: bin/akm.js
 * names the code cache after it, so a cache never outlives the bundle it was
 * made from. No source map: Node does not apply one to code compiled with vm.Script.
 */
const buildCli = async (name, contents, external = common.external, plugins = common.plugins) => {
  const result = await build({
    ...common,
    external,
    plugins,
    stdin: { contents, resolveDir: root, sourcefile: `akm-${name}.ts`, loader: "ts" },
    outfile: join(staging, `cli/${name}.cjs`),
    format: "cjs",
    // import() inside vm.Script goes through an experimental loader that warns on stderr; require (from bin/akm.js) does not.
    supported: { "dynamic-import": false },
    write: false
  })
  const [code] = result.outputFiles
  const id = createHash("sha256").update(code.contents).digest("hex").slice(0, 16)
  mkdirSync(join(staging, "cli"), { recursive: true })
  writeFileSync(code.path, `// akm build ${id}\n${code.text}`)
}

/**
 * The projector worker (src/layers/projector/projectorWorker.ts): large
 * bundles are scanned on worker threads that load only the adapters and the
 * file reader (docs/decisions/0006-parallel-scan.md). The CLI finds it beside
 * main.cjs.
 */
const buildProjectorWorker = () =>
  build({
    ...common,
    entryPoints: [join(root, "src/layers/projector/projectorWorker.ts")],
    outfile: join(staging, "cli/projector-worker.cjs"),
    format: "cjs"
  })

const buildLib = () =>
  build({
    ...common,
    entryPoints: { "lib/index": join(root, "src/index.ts") },
    outdir: staging,
    splitting: true,
    format: "esm",
    sourcemap: "linked",
    banner: { js: 'import { createRequire as __akmCreateRequire } from "node:module"; const require = __akmCreateRequire(import.meta.url);' }
  })

/** Replaces dist/ with the staged build in two renames. */
const swapIn = () => {
  const old = `${dist}.old-${process.pid}`
  if (existsSync(dist)) renameSync(dist, old)
  renameSync(staging, dist)
  rmSync(old, { recursive: true, force: true })
}

/**
 * Runs the commands agents use against a throwaway workspace, then lets
 * bin/akm.js save the V8 code caches of the bundles they loaded: functions
 * those commands compiled are then loaded as bytecode instead of being parsed
 * and compiled on every call. One process for the full CLI's commands, then
 * one per fast bundle with its own command lines. A failed warm-up only costs
 * speed (the launcher writes a cache of its own on first use), so it warns and
 * does not fail the build.
 */
const warmCodeCache = () => {
  const home = mkdtempSync(join(tmpdir(), "akm-warmup-"))
  try {
    const notes = join(home, "notes")
    mkdirSync(notes)
    writeFileSync(join(notes, "hello.md"), "---\ntitle: Hello\n---\n# Hello\n\nA note for the warm-up.\n")
    const full = [
      ["--help"],
      ["bundle", "--help"],
      ["info"],
      ["bundle", "add", notes, "--name", "notes"],
      ["bundle", "list"],
      ["bundle", "show", "notes"],
      // A first index: the index fast path's warm-up below then finds nothing changed.
      ["index"],
      ["config", "list"],
      ["config", "get", "defaultBundle"],
      ["init"],
      ["info", "--format", "text"],
      ["no-such-command"],
      // Searches the fast path hands to the full CLI (help, --filter).
      ["search", "--help"],
      ["search", "hello", "--filter", "project=notes"],
      // A show the fast path hands to the full CLI (--max-tokens).
      ["show", "notes//hello", "--max-tokens", "50"],
      // Shell completion (its own bundle, dist/cli/complete.cjs): a command, then a ref from the index.
      ["__complete", "se"],
      ["__complete", "show", "notes//"]
    ]
    // Each fast path's command lines as agents and people run them, in a process of their own and after the
    // full CLI's: its bundle's cache then holds what those commands compile, not what V8 flushed meanwhile.
    for (const commands of [full, ...FAST_BUNDLES.map((fast) => fast.warmup)]) {
      // Inherited, so NODE_OPTIONS flags match later runs (V8 rejects a cache made under other flags).
      const env = {
        ...process.env,
        HOME: home,
        AKM_CONFIG_DIR: join(home, "config"),
        AKM_DATA_DIR: join(home, "data"),
        AKM_CACHE_DIR: join(home, "cache"),
        XDG_CONFIG_HOME: join(home, "xdg-config"),
        XDG_DATA_HOME: join(home, "xdg-data"),
        XDG_CACHE_HOME: join(home, "xdg-cache"),
        AKM_CODE_CACHE_WARMUP: JSON.stringify(commands)
      }
      const run = spawnSync(process.execPath, [join(root, "bin/akm.js")], { cwd: home, env, stdio: ["ignore", "ignore", "pipe"], timeout: 120_000 })
      if (run.status !== 0) process.stderr.write(`warning: code cache warm-up failed (status ${run.status}); akm will make one on first use\n${run.stderr}`)
    }
  } finally {
    rmSync(home, { recursive: true, force: true })
  }
}

rmSync(staging, { recursive: true, force: true })
try {
  await buildCli("main", 'export { runCli, helpTexts, commandTree } from "./src/cli/main.js"')
  const built = createRequire(import.meta.url)(join(staging, "cli", "main.cjs"))
  // Every command's help, printed by bin/akm.js without loading the CLI (help depends on the build alone).
  writeFileSync(join(staging, "cli", "help.json"), `${JSON.stringify(built.helpTexts())}\n`)
  // `akm __complete` (shell completion) answers from its own small bundle, on the command tree read here once from main's descriptors.
  writeFileSync(join(staging, "cli", "command-tree.json"), JSON.stringify(built.commandTree()))
  await buildCli("complete", 'export { runComplete } from "./src/cli/completeRun.js"', FAST_EXTERNAL)
  for (const fast of FAST_BUNDLES) await buildCli(fast.name, `export { ${fast.run} } from "./src/cli/fast/${fast.source}.js"`, FAST_EXTERNAL, [...common.plugins, lazyCrypto])
  // `akm mcp`: the MCP server (@effect/ai) in a bundle of its own, loaded by that command alone (docs/decisions/0021-mcp-server.md).
  await buildCli("mcp", 'export { startMcp } from "./src/cli/mcp/start.js"')
  await buildProjectorWorker()
  await buildLib()
  writeFileSync(join(staging, "version.json"), `${JSON.stringify({ version: pkg.version })}\n`)
  swapIn()
} finally {
  rmSync(staging, { recursive: true, force: true })
}
warmCodeCache()
