/** Types of dev-deps-check.mjs (plain ESM, run by `npm run images` and CI without a compiler). */

/** The lockfile shape read here: npm's `packages` map with its dev markers. */
export interface Lockfile {
  packages?: Record<string, { dev?: boolean; devOptional?: boolean }>;
}
/** Package names the lockfile reaches only through devDependencies (dev or devOptional). */
export function devOnlyPackages(lock: Lockfile): Set<string>;
/** One line per installed package name that is dev-only. */
export function devOnlyProblems(image: string, installed: readonly string[], devOnly: ReadonlySet<string>): string[];
