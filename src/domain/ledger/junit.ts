import { XMLParser, XMLValidator } from "fast-xml-parser"
import { clip, isoDay, type FailureObservation, type InputProblem } from "./FailureObservation.js"

/**
 * JUnit XML → failure observations (spec 08 §2, `ledger import-ci`). The
 * de-facto schema (Surefire, Jest/Vitest reporters, pytest, Gradle):
 * `<testsuites>` holding `<testsuite>`s, which may nest, holding
 * `<testcase classname name>` with an optional `<failure>` or `<error>`
 * (`message`, `type`, the stack as text) or `<skipped>`.
 *
 * Mapping: `classname` → module (else the suite's name), `name` → operation,
 * `type` → error class (else the message's first line, else the element name),
 * `message` → message (else the element's text). One observation per failing
 * testcase, the first `<failure>`, else the first `<error>`; skipped and passing
 * testcases give none. The day is the nearest enclosing suite's `timestamp`,
 * else `defaultDay` (the caller's: the file's modification day).
 */

export type JunitResult =
  | { readonly _tag: "Parsed"; readonly observations: ReadonlyArray<FailureObservation>; readonly testcases: number }
  | { readonly _tag: "NotXml"; readonly problem: InputProblem }
  | { readonly _tag: "NotJunit"; readonly root: string }

const ARRAYS = new Set(["testsuites", "testsuite", "testcase", "failure", "error"])

const parser = new XMLParser({
  ignoreAttributes: false,
  attributeNamePrefix: "@_",
  textNodeName: "#text",
  // Every value stays text: a testcase named "007" or "true" keeps its name.
  parseTagValue: false,
  parseAttributeValue: false,
  ignoreDeclaration: true,
  ignorePiTags: true,
  isArray: (name) => ARRAYS.has(name)
})

type Node = Record<string, unknown>

const asNode = (value: unknown): Node => (typeof value === "object" && value !== null && !Array.isArray(value) ? (value as Node) : {})
const children = (node: Node, name: string): ReadonlyArray<unknown> => {
  const value = node[name]
  return Array.isArray(value) ? value : value === undefined ? [] : [value]
}
const attribute = (node: Node, name: string): string | undefined => {
  const value = node[`@_${name}`]
  return typeof value === "string" && value.trim() !== "" ? value.trim() : undefined
}
/** An element's own text: a bare string when it has no attributes, else its `#text`. */
const text = (value: unknown): string => (typeof value === "string" ? value : typeof asNode(value)["#text"] === "string" ? (asNode(value)["#text"] as string) : "").trim()

const firstLine = (value: string): string | undefined => value.split(/\r?\n/).map((line) => line.trim()).find((line) => line !== "")

interface Scope {
  readonly day: string
  readonly suite: string | undefined
}

const testcaseObservation = (testcase: Node, scope: Scope, origin: string): FailureObservation | undefined => {
  const [element, raw] = children(testcase, "failure").length > 0 ? ["failure", children(testcase, "failure")[0]] as const : children(testcase, "error").length > 0 ? ["error", children(testcase, "error")[0]] as const : [undefined, undefined]
  if (element === undefined) return undefined
  const node = asNode(raw)
  const body = text(raw)
  const message = attribute(node, "message") ?? body
  const errorClass = attribute(node, "type") ?? firstLine(message) ?? firstLine(body) ?? element
  return {
    date: scope.day,
    module: attribute(testcase, "classname") ?? scope.suite ?? "(no module)",
    operation: attribute(testcase, "name") ?? "(unnamed test)",
    errorClass,
    message: clip(message === "" ? errorClass : message),
    source: "ci",
    origin
  }
}

const walkSuite = (suite: Node, outer: Scope, origin: string, into: Array<FailureObservation>): number => {
  const timestamp = attribute(suite, "timestamp")
  const scope: Scope = {
    day: (timestamp === undefined ? undefined : isoDay(timestamp)) ?? outer.day,
    suite: attribute(suite, "name") ?? outer.suite
  }
  let testcases = 0
  for (const testcase of children(suite, "testcase")) {
    testcases++
    const observation = testcaseObservation(asNode(testcase), scope, origin)
    if (observation !== undefined) into.push(observation)
  }
  for (const nested of children(suite, "testsuite")) testcases += walkSuite(asNode(nested), scope, origin, into)
  return testcases
}

/** `origin` names the file in observations; `defaultDay` is `YYYY-MM-DD`. */
export const parseJunit = (xml: string, origin: string, defaultDay: string): JunitResult => {
  const valid = XMLValidator.validate(xml)
  if (valid !== true) return { _tag: "NotXml", problem: { line: valid.err.line ?? 1, column: valid.err.col, message: valid.err.msg } }
  const document = asNode(parser.parse(xml))
  const roots = Object.keys(document).filter((key) => !key.startsWith("#") && !key.startsWith("?"))
  const observations: Array<FailureObservation> = []
  const top: Scope = { day: defaultDay, suite: undefined }
  if (roots[0] === "testsuites") {
    let testcases = 0
    for (const suites of children(document, "testsuites")) {
      const node = asNode(suites)
      const timestamp = attribute(node, "timestamp")
      const scope: Scope = { day: (timestamp === undefined ? undefined : isoDay(timestamp)) ?? defaultDay, suite: undefined }
      for (const suite of children(node, "testsuite")) testcases += walkSuite(asNode(suite), scope, origin, observations)
    }
    return { _tag: "Parsed", observations, testcases }
  }
  if (roots[0] === "testsuite") {
    let testcases = 0
    for (const suite of children(document, "testsuite")) testcases += walkSuite(asNode(suite), top, origin, observations)
    return { _tag: "Parsed", observations, testcases }
  }
  return { _tag: "NotJunit", root: roots[0] ?? "(none)" }
}
