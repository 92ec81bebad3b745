#!/usr/bin/env node
// akm's launcher. Start-up is paid on every agent call, so this file does three
// things to shorten it (docs/decisions/0002-start-up.md). An index build also
// runs under V8 flags of its own (buildFlags below).
// - `--version`, the call agents make most to probe for akm, is answered from
//   dist/version.json without loading the CLI, and help (`akm --help`,
//   `akm <command> --help`) from dist/cli/help.json, written by the build;
// - the CLI bundle (dist/cli/main.cjs) is compiled through vm.Script with a V8
//   code cache, which skips parsing and compiling it again on every call
//   (Node 20 caches no ESM compilation, and module.enableCompileCache arrived in 22);
// - `akm search …` first tries dist/cli/search.cjs, a far smaller bundle with
//   no CLI framework (src/cli/fast/search.ts), code-cached the same way; show,
//   curate, info, bundle list and health likewise have bundles of their own (fastPath below),
//   and so has a no-op `akm index` (docs/decisions/0045-noop-and-startup.md),
//   and `akm __complete …` (shell completion) goes to dist/cli/complete.cjs.
// CommonJS (bin/package.json): Node loads it faster than an ES module.
"use strict"
const { readFileSync, renameSync, rmSync, writeFileSync } = require("node:fs")
const { createRequire } = require("node:module")
const { dirname, join } = require("node:path")
const vm = require("node:vm")

const dist = join(__dirname, "..", "dist")

/**
 * Whether akm's V8 flags for index builds are on (bin/v8Flags.cjs,
 * docs/decisions/0059-v8-flags.md). Only a command that builds the index sets
 * them, and only once it runs in the full CLI: while they are on, node's own
 * modules load without node's built-in code cache (≈ 15 ms), which every
 * other command's start-up would pay. V8 checks a code cache against the
 * flags, so they are off whenever a bundle is compiled or its cache written.
 */
let buildFlagsOn = false
const setBuildFlags = (on) => {
  if (on === buildFlagsOn) return
  const flags = require("./v8Flags.cjs")
  require("node:v8").setFlagsFromString(on ? flags.on : flags.off)
  buildFlagsOn = on
}

/** Bundles loaded by this process, by name (main, search), with what saving their code cache needs. */
const loaded = new Map()

/**
 * Compiles and runs the CommonJS bundle dist/cli/<name>.cjs and returns its
 * exports. The cache file is named after the build id in the bundle's first
 * line and after this Node, because V8 checks only its own version, flags and
 * the source's length before trusting a cache.
 */
const load = (name) => {
  const known = loaded.get(name)
  if (known !== undefined) return known.exports
  const bundle = join(dist, "cli", `${name}.cjs`)
  const source = readFileSync(bundle, "utf8")
  const build = /^\/\/ akm build ([0-9a-f]{16})/.exec(source)?.[1] ?? "unknown"
  const cacheFile = `${bundle.slice(0, -".cjs".length)}-${build}-${process.version}-${process.arch}.cache`
  let cachedData
  try {
    cachedData = readFileSync(cacheFile)
  } catch {
    cachedData = undefined
  }
  // The bundle has no import(): scripts/build.mjs turns it into require, which needs no (experimental) vm loader.
  const buildFlags = buildFlagsOn
  setBuildFlags(false)
  const script = new vm.Script(`(function (exports, require, module, __filename, __dirname) {${source}\n})`, { filename: bundle, cachedData })
  setBuildFlags(buildFlags)
  const module = { exports: {} }
  /** Writes the cache with what this process compiled; a read-only install just stays without one. */
  const saveCodeCache = () => {
    const temporary = `${cacheFile}.${process.pid}.tmp`
    setBuildFlags(false)
    try {
      writeFileSync(temporary, script.createCachedData())
      renameSync(temporary, cacheFile)
    } catch {
      rmSync(temporary, { force: true })
    }
  }
  script.runInThisContext().call(module.exports, module.exports, createRequire(bundle), module, bundle, dirname(bundle))
  loaded.set(name, { exports: module.exports, stale: cachedData === undefined || script.cachedDataRejected === true, saveCodeCache })
  return module.exports
}

const readJson = (file) => {
  try {
    return JSON.parse(readFileSync(file, "utf8"))
  } catch {
    return undefined
  }
}

/**
 * The fast path of a command line's command, if it has one: its bundle in
 * dist/cli/ and the function that runs it (src/cli/fast/, scripts/build.mjs
 * FAST_BUNDLES; docs/decisions/0013-fast-read-commands.md).
 */
const fastPath = (args) => {
  switch (args[0]) {
    case "search":
      return { bundle: "search", run: "runSearch" }
    case "show":
      return { bundle: "show", run: "runShow" }
    case "curate":
      return { bundle: "curate", run: "runCurate" }
    case "info":
      return { bundle: "info", run: "runInfo" }
    case "health":
      return { bundle: "health", run: "runHealth" }
    case "index":
      return { bundle: "index", run: "runIndex" }
    case "bundle":
      return args[1] === "list" ? { bundle: "bundle-list", run: "runBundleList" } : undefined
    default:
      return undefined
  }
}

/**
 * Runs one command line and resolves to its exit code. A command with a fast
 * path (search, show, curate, info, bundle list, health, index) goes first to its small
 * bundle, which answers plain command lines without @effect/cli and hands
 * anything else (help, unusual flags, an index never built, any error, an
 * index run that must scan) back untouched to the full CLI.
 */
const run = async (args) => {
  if (args[0] === "__complete") {
    // Shell completion: the command tree scripts/build.mjs wrote, and a bundle without the CLI framework.
    const tree = readJson(join(dist, "cli", "command-tree.json"))
    if (tree !== undefined) return load("complete").runComplete(tree, args.slice(1))
  }
  const fast = fastPath(args)
  if (fast !== undefined) {
    const code = await load(fast.bundle)[fast.run](args)
    if (code !== undefined) return code
  }
  const main = load("main")
  // `akm index` and `akm bundle add` that reach the full CLI build or refresh the index.
  if (args[0] === "index" || (args[0] === "bundle" && args[1] === "add")) setBuildFlags(true)
  // The command tree the build read from the CLI's descriptors: describing them again costs more than the file.
  return main.runCli(args, {}, readJson(join(dist, "cli", "command-tree.json")))
}

const internalError = (error) => {
  process.stderr.write(`${JSON.stringify({ ok: false, error: { code: "internal", message: String(error), hint: "this is a bug in akm; rerun with --verbose" } })}\n`)
  return 70
}

/**
 * `akm`, `akm --help` and `akm <command…> --help`: the help text the build
 * wrote to dist/cli/help.json from the CLI's own renderer (main.ts helpTexts),
 * or undefined for any other command line (the CLI then settles it).
 */
const helpFor = (args) => {
  const last = args.at(-1)
  if (last !== undefined && last !== "--help" && last !== "-h") return undefined
  const words = args.slice(0, -1)
  if (words.some((word) => word.startsWith("-"))) return undefined
  try {
    return JSON.parse(readFileSync(join(dist, "cli", "help.json"), "utf8"))[words.join(" ")]
  } catch {
    return undefined
  }
}

const main = async () => {
  const args = process.argv.slice(2)
  const help = process.env.AKM_CODE_CACHE_WARMUP === undefined ? helpFor(args) : undefined
  if (args.length === 1 && (args[0] === "--version" || args[0] === "-V")) {
    const { version } = JSON.parse(readFileSync(join(__dirname, "..", "dist", "version.json"), "utf8"))
    process.stdout.write(`${version}\n`)
  } else if (typeof help === "string") {
    process.stdout.write(help)
  } else if (process.env.AKM_CODE_CACHE_WARMUP !== undefined) {
    // scripts/build.mjs: run representative commands in this one process, then save what they compiled.
    for (const command of JSON.parse(process.env.AKM_CODE_CACHE_WARMUP)) await run(command)
    for (const bundle of loaded.values()) bundle.saveCodeCache()
  } else {
    process.once("exit", () => {
      for (const bundle of loaded.values()) if (bundle.stale) bundle.saveCodeCache()
    })
    process.exitCode = await run(args).catch(internalError)
  }
}

main()
