/** The task format is read by the adapter (lint, index) and by `akm task` alike: one reader, in the domain. */
export { readTask, TASK_TARGETS, type TaskCheck, type TaskDefinition, type TaskFinding, type TaskTargetKind } from "../../../domain/TaskDefinition.js"
