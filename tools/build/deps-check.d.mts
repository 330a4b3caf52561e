/** Types of deps-check.mjs (plain ESM so that `node tools/build/…` runs it in an image without a compiler). */
import type { Metafile, Plugin } from 'esbuild';

/** The package a bare import specifier names. */
export function packageName(spec: string): string;
/** Third-party imports stay external; @wordgame/* workspace libs and relative paths are bundled. */
export const externalThirdParty: Plugin;
/** Every npm workspace folder, relative to root. */
export function workspaces(root: string): string[];
/** A project's runtime entry (src/main.ts, else exports["."]), or undefined. */
export function entryOf(root: string, project: string): string | undefined;
/** One line per import of a bundled file that its owning project does not declare in dependencies. */
export function metafileProblems(root: string, metafile: Metafile): string[];
/** The metafile of one project's bundle, or undefined when it has no runtime entry. */
export function bundleMetafile(root: string, project: string): Promise<Metafile | undefined>;
/** The dependency problems of every workspace project that has a runtime entry. */
export function dependencyProblems(root: string): Promise<string[]>;
