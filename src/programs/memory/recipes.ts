/** The recipe name of consolidation proposals. */
export const CONSOLIDATE_RECIPE = "memory-consolidate"
/** The recipe name of formalisations into another bundle: applied two-phase (R-TX-9). */
export const FORMALIZE_RECIPE = "memory-formalize"
