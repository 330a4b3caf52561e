/** Types of table-owners.mjs's exports that TypeScript callers use (tools/generate/docs/modules.ts). */
export function tableOwners(root: string): { owners: Map<string, string>; problems: string[] };
