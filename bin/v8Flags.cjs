// The V8 flags akm builds its index under (docs/decisions/0059-v8-flags.md):
// TurboFan without inlining. A build runs for seconds, and much of its code
// is optimised while it runs, on V8's background threads; inlining makes those
// compilations and their deoptimisations costly for code that runs too
// briefly to pay them back. A full index of the 5,000-item bench corpus took
// ≈ 10 % less CPU, ≈ 3–7 % at 20,000 items. `off` puts the flags back as they
// were: V8 checks a code cache against the flags, so bin/akm.js turns them off
// whenever it compiles a bundle or writes its cache.
"use strict"
module.exports = { on: "--no-turbo-inlining", off: "--turbo-inlining" }
