/**
 * The SKILL.md codec and the skill-directory layout (spec 03 "agent-skills"),
 * shared by every adapter whose bundles hold skills: agent-skills, claude,
 * opencode, akm and project. Adapters import it from here.
 */
export { createReference, createSkill } from "./authoring.js"
export { commandParameters } from "./commandParameters.js"
export {
  bundleFiles, danglingDiagnostics, fileSetOf, linkIdOf, linkReferences, resolvedLinks, SHIPPED_ASSET_EXTENSIONS, skillFileReferences,
  type FileReference, type FileSet, type ReferenceScan
} from "./fileReferences.js"
export { projectAgentFile, projectCommandFile, projectInstructionFile, type AgentOptions, type CommandOptions, type InstructionOptions } from "./hostDocuments.js"
export { HOST_FIELDS, skillMdRules, SPEC_FIELDS, WHEN_TO_USE_PHRASES, withGuidance, type SkillHost } from "./rules.js"
export {
  planSkills, projectReference, projectSkill, projectSkillItem, REFERENCE_KIND, SKILL_KIND, skillDirectoryProblem, skillDirOf, skillFileIn,
  type SkillParents, type SkillProjectOptions
} from "./skillDirectory.js"
export {
  approximateTokens, checkSkillMd, parseSkillMd, skillProperties,
  type SkillCheck, type SkillCheckInput, type SkillFields, type SkillMd, type SkillProperties
} from "./SkillMd.js"
export { codePointLength, normalizeSkillName, skillNameFromTitle, skillNameProblems } from "./skillName.js"
