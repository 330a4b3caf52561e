/**
 * Preloaded (`node --import`) by the images' entrypoint before a service's main.js. In a container
 * the service is PID 1, and PID 1 ignores a signal it has no handler for: a SIGTERM that comes
 * while main.js is still loading (a pod stopped a second after it restarted) was lost, and the
 * orchestrator killed the process after its grace (exit 137). Until the service's own handler takes
 * over (libs/lifecycle runService marks the signals as its own), a SIGTERM or SIGINT exits at once
 * with 0: nothing has started yet, so nothing is left half done.
 */
const OWNED = Symbol.for('wordgame.lifecycle.signals');

/** @param {NodeJS.Signals} signal */
function early(signal) {
  if (/** @type {Record<symbol, unknown>} */ (globalThis)[OWNED] === true) return;
  process.stderr.write(`${JSON.stringify({ level: 30, time: Date.now(), signal, msg: 'stopped before the service started' })}\n`);
  process.exit(0);
}

process.on('SIGTERM', early);
process.on('SIGINT', early);
