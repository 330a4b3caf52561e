import { resolve } from 'node:path';
import { ensureDevCerts, ensureNatsCert } from '@wordgame/testkit';

/**
 * `npm run certs [dir]`: makes the dev CA, the gateway's server pair and the bot's client pair under
 * `.data/certs` (or `dir`), and the NATS server's pair from the same CA (`<dir>/nats`, what the
 * Kubernetes overlays' `nats-tls` Secret holds). Idempotent: an existing complete set is kept as it is.
 */
const dir = resolve(process.argv[2] ?? '.data/certs');
const certs = ensureDevCerts(dir);
const nats = ensureNatsCert(dir);
process.stdout.write(
  `${certs.created ? 'created' : 'kept existing'} dev certificates in ${dir}\n` +
    `  CA       ${certs.ca.cert}\n  gateway  ${certs.gateway.cert}\n  bot      ${certs.bot.cert}\n` +
    `  nats     ${nats.cert} (${nats.created ? 'created' : 'kept'})\n`,
);
