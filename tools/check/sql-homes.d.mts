/** Types of sql-homes.mjs's exports that TypeScript and checked-JS callers use (tools/lint-rules). */
export const SQL_ROOTS: string[];
/** Where a file (path relative to its root) stands: a SQL home, a test, or code where SQL is refused. */
export function homeOf(rel: string): 'store' | 'test' | 'code';
/** The SQL statements of one source text, each with its 1-based line and its first SQL call. */
export function sqlStatements(fileName: string, text: string): { line: number; call: string }[];
/** Checks each root; the report lines and whether SQL was found outside its homes. */
export function check(roots: string[]): { lines: string[]; failed: boolean };
