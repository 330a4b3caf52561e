/** Types of feature-cycles.mjs's exports that TypeScript callers use (tools/generate/docs/modules.ts). */
export const APP_ROOTS: string[];
/** Feature -> the features it imports -> the import lines ("file -> specifier") that make each arrow. */
export function featureGraph(root: string): Map<string, Map<string, string[]>>;
/** Strongly connected components with more than one feature, each sorted. */
export function cycles(graph: Map<string, Map<string, string[]>>): string[][];
/** One concrete cycle inside a component, as a path a -> b -> ... -> a. */
export function cyclePath(graph: Map<string, Map<string, string[]>>, component: string[]): string[];
