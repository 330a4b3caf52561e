import { natsUserKeys } from '@wordgame/testkit';

/**
 * `npm run --silent nats-keys >> .env`: a fresh NKEY user pair for the gateways and one for the
 * backends, as the .env lines docker-compose.yml reads (README "Scaling out"): each seed goes to
 * its service only, the public keys to the `nats` service (ops/nats/nats.conf).
 */
const gateway = natsUserKeys();
const backend = natsUserKeys();
process.stdout.write(
  [
    `NATS_GATEWAY_NKEY_SEED=${gateway.seed}`,
    `NATS_GATEWAY_NKEY=${gateway.publicKey}`,
    `NATS_BACKEND_NKEY_SEED=${backend.seed}`,
    `NATS_BACKEND_NKEY=${backend.publicKey}`,
    '',
  ].join('\n'),
);
