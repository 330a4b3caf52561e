/**
 * The size of a run: the CI short form by default, the long form with FAULTS_SCALE=full
 * (`npx nx run faults:long`). Each suite picks its numbers from here.
 */
export const FULL = process.env['FAULTS_SCALE'] === 'full';

/** `ci` in the short form, `full` in the long one. */
export function scaled<T>(ci: T, full: T): T {
  return FULL ? full : ci;
}

/** Prints one figure line of a suite (`[faults] <suite>: <text>`), kept out of jest's console decoration. */
export function report(suite: string, text: string): void {
  process.stdout.write(`[faults] ${suite}: ${text}\n`);
}
