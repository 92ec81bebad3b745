// V8 flags every akm process sets before it compiles anything (bin/akm.js),
// and the benchmark's in-process driver too, so its figures are akm's
// (docs/decisions/0059-v8-flags.md). TurboFan without inlining: a full index
// of the 5,000-item bench corpus took ≈ 9–11 % less CPU (less optimising
// work on V8's background threads and fewer deoptimisations in code that
// runs for seconds, not hours), ≈ 3–7 % at 20,000 items, and search was no
// slower. Flags are part of the hash a V8 code cache is checked against:
// every process that reads or writes the caches in dist/cli must set these
// same flags first.
"use strict"
module.exports = "--no-turbo-inlining"
