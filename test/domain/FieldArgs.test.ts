import { describe, expect, it } from "vitest"
import { Either } from "effect"
import { parseFieldArgs } from "../../src/domain/FieldArgs.js"

describe("--field key=value", () => {
  it("splits at the first =, keeps the value as given, and a repeated key builds a list in order", () => {
    expect(parseFieldArgs(["module=src/db", "symptom=a=b == c", "tags=one", "tags=two", "tags=three", "empty="])).toEqual(
      Either.right({ module: "src/db", symptom: "a=b == c", tags: ["one", "two", "three"], empty: "" })
    )
    expect(parseFieldArgs([])).toEqual(Either.right({}))
  })

  it("an argument without = or with a bad name is a usage error naming it", () => {
    const missing = parseFieldArgs(["module=src/db", "symptom"])
    expect(Either.isLeft(missing) && missing.left).toMatchObject({ _tag: "UsageError", message: expect.stringContaining("--field 'symptom' has no '='") })
    for (const bad of ["=value", "two words=x", "1st=x"]) {
      const result = parseFieldArgs([bad])
      expect(Either.isLeft(result) && result.left).toMatchObject({ _tag: "UsageError", message: expect.stringContaining(`--field '${bad}'`) })
    }
  })
})
