export * from "./Codec.js"
export * from "./Fingerprint.js"
export * from "./Kinds.js"
export * from "./Record.js"
