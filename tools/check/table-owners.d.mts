/** Types of table-owners.mjs's exports that TypeScript and checked-JS callers use (tools/generate, tools/lint-rules). */
export const OWNED_ROOTS: string[];
/** A write of another module's table that stays where it is, with why. */
export interface OwnershipException {
  file: string;
  table: string;
  reason: string;
}
export const OWNERSHIP_EXCEPTIONS: OwnershipException[];
/** Table -> owning module, from the `interface DB` blocks of the `*.table.ts` files under root. */
export function tableOwners(root: string): { owners: Map<string, string>; problems: string[] };
/** The writes of one source text: line, the table (undefined when it cannot be named) and how. */
export function writesOf(fileName: string, text: string): { line: number; table: string | undefined; how: string }[];
/** Checks each root; the report lines and whether a module writes a table it does not own. */
export function check(roots: string[], exceptions?: OwnershipException[]): { lines: string[]; failed: boolean };
