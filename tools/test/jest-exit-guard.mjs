/**
 * jest's globalTeardown for every project (jest.preset.js): once the run is over and its report
 * written, a process still alive EXIT_GUARD_MS later is held by something a test left open (a
 * timer, socket, server or child process). jest would only warn and wait for good, hanging `npm test`
 * and CI until their time limit; this names the cause and exits 1, so the project fails instead.
 * The timer is unref'd: a run that ends cleanly exits at once, untouched.
 */
export const EXIT_GUARD_MS = Number(process.env.JEST_EXIT_GUARD_MS ?? 30_000);

export default async function exitGuard() {
  const timer = setTimeout(() => {
    process.stderr.write(
      `jest: the process is still alive ${EXIT_GUARD_MS} ms after the run ended: a test left a timer, socket, server ` +
        'or child process open (run the project with --detectOpenHandles to find it). Failing instead of hanging.\n',
    );
    process.exit(1);
  }, EXIT_GUARD_MS);
  timer.unref();
}
