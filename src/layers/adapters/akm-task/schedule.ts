/** The adapter's schedule check is the runtime's (domain/CronSchedule.ts, croner underneath): lint and `task enable` agree. */
export { SCHEDULE_MACROS, scheduleProblem } from "../../../domain/CronSchedule.js"
