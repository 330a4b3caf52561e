/**
 * Soak: `npm run soak -w tools/bench` (Nx: `npx nx run bench:soak`). Runs backend, gateway and bot
 * from their bundles with both emulators on a fresh PostgreSQL database under a steady mixed load
 * (wallet get and buy, stars and card orders and their payments, bot-link commands, health) for
 * SOAK_SECONDS (default 600), printing every service's RSS every SOAK_SAMPLE_SECONDS (default
 * 5 s for 600 s, 2 s for 60 s) and the operations and errors of each interval; then the totals per
 * kind, RSS first/peak/last per service and the verdict (soak/verdict.ts). SOAK_RATE multiplies
 * every rate (default 1), SOAK_CUSTOMERS sets the customers of each kind (default 12). Exits 1
 * when the verdict fails. Needs PostgreSQL (DATABASE_URL or postgres://postgres@127.0.0.1:5432/test).
 */
import { defaultSampleSeconds, runSoak } from './soak/run.js';

const seconds = Number(process.env['SOAK_SECONDS'] ?? 600);
const sampleSeconds = Number(process.env['SOAK_SAMPLE_SECONDS'] ?? defaultSampleSeconds(seconds));
if (!(seconds > 0 && sampleSeconds > 0 && sampleSeconds * 9 <= seconds)) {
  process.stderr.write('SOAK_SECONDS and SOAK_SAMPLE_SECONDS must be positive, with at least 9 samples in the run\n');
  process.exit(2);
}
const result = await runSoak({
  seconds,
  sampleSeconds,
  rate: Number(process.env['SOAK_RATE'] ?? 1),
  customers: Number(process.env['SOAK_CUSTOMERS'] ?? 12),
  serverUrl: process.env['DATABASE_URL'] ?? 'postgres://postgres@127.0.0.1:5432/test',
  rebuildApps: true,
  write: (line) => process.stdout.write(`${line}\n`),
});
process.exitCode = result.passed ? 0 : 1;
