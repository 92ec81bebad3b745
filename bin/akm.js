#!/usr/bin/env node
// akm's launcher. Start-up is paid on every agent call, so this file does two
// things to shorten it (docs/decisions/0002-start-up.md):
// - `--version`, the call agents make most to probe for akm, is answered from
//   dist/version.json without loading the CLI;
// - the CLI bundle (dist/cli/main.cjs) is compiled through vm.Script with a V8
//   code cache, which skips parsing and compiling it again on every call
//   (Node 20 caches no ESM compilation, and module.enableCompileCache arrived in 22).
// CommonJS (bin/package.json): Node loads it faster than an ES module.
"use strict"
const { readFileSync, renameSync, rmSync, writeFileSync } = require("node:fs")
const { createRequire } = require("node:module")
const { dirname, join } = require("node:path")
const vm = require("node:vm")

const bundle = join(__dirname, "..", "dist", "cli", "main.cjs")

/**
 * Compiles and runs the CommonJS bundle. The cache file is named after the
 * build id in the bundle's first line and after this Node, because V8 checks
 * only its own version, flags and the source's length before trusting a cache.
 */
const loadCli = () => {
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
  const script = new vm.Script(`(function (exports, require, module, __filename, __dirname) {${source}\n})`, { filename: bundle, cachedData })
  const module = { exports: {} }
  script.runInThisContext().call(module.exports, module.exports, createRequire(bundle), module, bundle, dirname(bundle))
  /** Writes the cache with what this process compiled; a read-only install just stays without one. */
  const saveCodeCache = () => {
    const temporary = `${cacheFile}.${process.pid}.tmp`
    try {
      writeFileSync(temporary, script.createCachedData())
      renameSync(temporary, cacheFile)
    } catch {
      rmSync(temporary, { force: true })
    }
  }
  return { runCli: module.exports.runCli, stale: cachedData === undefined || script.cachedDataRejected === true, saveCodeCache }
}

const internalError = (error) => {
  process.stderr.write(`${JSON.stringify({ ok: false, error: { code: "internal", message: String(error), hint: "this is a bug in akm; rerun with --verbose" } })}\n`)
  return 70
}

const main = async () => {
  const args = process.argv.slice(2)
  if (args.length === 1 && (args[0] === "--version" || args[0] === "-V")) {
    const { version } = JSON.parse(readFileSync(join(__dirname, "..", "dist", "version.json"), "utf8"))
    process.stdout.write(`${version}\n`)
  } else if (process.env.AKM_CODE_CACHE_WARMUP !== undefined) {
    // scripts/build.mjs: run representative commands in this one process, then save what they compiled.
    const { runCli, saveCodeCache } = loadCli()
    for (const command of JSON.parse(process.env.AKM_CODE_CACHE_WARMUP)) await runCli(command)
    saveCodeCache()
  } else {
    const { runCli, stale, saveCodeCache } = loadCli()
    if (stale) process.once("exit", saveCodeCache)
    process.exitCode = await runCli(args).catch(internalError)
  }
}

main()
