import { Layer } from "effect"
import { CrashPoints } from "../../../services/CrashPoints.js"

/** The shipped CrashPoints: every point is a no-op, and nothing is read from the environment (spec 11: no test hook in shipped code). */
export const crashPointsNone: CrashPoints["Type"] = CrashPoints.of({ reach: () => undefined })

export const CrashPointsNone = Layer.succeed(CrashPoints, crashPointsNone)
