/** Types of feature-cycles.mjs's exports that TypeScript callers use (tools/generate/docs/modules.ts). */
export const APP_ROOTS: string[];
/** Feature -> the features it imports -> the import lines ("file -> specifier") that make each arrow. */
export function featureGraph(root: string): Map<string, Map<string, string[]>>;
