import { relative, resolve } from 'node:path';
import { ConfigError, parseConfig } from '@wordgame/config';
import { devStackConfigSchema, stackPortsOf } from './config.js';
import { walletLaunchLinks } from './launch-links.js';
import { DEV_OPERATOR } from './operator.js';
import { startStack } from './stack.js';

/** `npm start`: runs the whole local stack until Ctrl-C, then stops every process cleanly. */
const root = resolve(import.meta.dirname, '../../..');
const t0 = Date.now();
let ports;
try {
  ports = stackPortsOf(parseConfig(devStackConfigSchema, process.env));
} catch (err: unknown) {
  process.stderr.write(`dev stack: ${err instanceof ConfigError ? err.message : String(err)}\n`);
  process.exit(1);
}
const stack = await startStack({ root, ports, logLevel: process.env['LOG_LEVEL'] ?? 'info' }).catch((err: unknown) => {
  process.stderr.write(`dev stack failed to start: ${err instanceof Error ? err.message : String(err)}\n`);
  process.exit(1);
});
const u = stack.urls;
const links = walletLaunchLinks(u.gateway);
process.stdout.write(
  [
    '',
    `wordgame dev stack is up in ${((Date.now() - t0) / 1000).toFixed(1)} s`,
    `  gateway   REST /api/v1, console /_gm, /health             ${u.gateway}`,
    `  gateway   Prometheus /metrics (loopback only)             ${u.metrics}`,
    `  gateway   BotLink gRPC (mutual TLS)                       ${u.botlink}`,
    `  database  PostgreSQL 15 (embedded) in .data/postgres      ${u.database}`,
    `  backend   Connect (h2c) + /health                         ${u.backend}`,
    `  bot       loopback health probe                           ${u.botHealth}/health`,
    `  platform  chat-platform (Bot API) emulator                ${u.platform}`,
    `  provider  payment provider (YooKassa v3) emulator         ${u.provider}/v3`,
    `  operator (console /_gm, operator API POST /_gm/api/session): ${DEV_OPERATOR.login} / ${DEV_OPERATOR.password}`,
    '  dev mailbox (e-mail confirmation links): .data/mailbox   certificates: .data/certs',
    `  credentials of this run (database URL, service tokens, operator, bot token, shop): ${relative(process.cwd(), stack.envFile)}`,
    '  while this runs: npm run operator:create|reconcile|audit|migrate -w apps/backend (they read that file)',
    '  wallet page, one link per context (fresh ones: npm run dev:links):',
    `    web       ${links.web}`,
    `    telegram  ${links.telegram}`,
    `    vk        ${links.vk}`,
    '  Ctrl-C stops everything.',
    '',
  ].join('\n') + '\n',
);

let stopping = false;
const shutdown = async (code: number) => {
  if (stopping) return;
  stopping = true;
  process.stdout.write('stopping the dev stack...\n');
  await stack.stop();
  process.stdout.write('all processes stopped\n');
  process.exit(code);
};
process.on('SIGINT', () => void shutdown(0));
process.on('SIGTERM', () => void shutdown(0));
void stack.firstExit.then((name) => {
  if (stopping) return;
  process.stderr.write(`${name} exited unexpectedly; stopping the rest\n`);
  void shutdown(1);
});
