import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { composeExposureProblems } from '@wordgame/testkit';

const root = resolve(import.meta.dirname, '../../..');

/** docs/security.md, "Deploy defaults": what compose publishes, and what a service may write. */
describe('docker-compose deploy defaults', () => {
  it('publishes only the gateways beyond loopback, runs every built service and NATS read-only, and leaves the code root-owned', () => {
    expect(composeExposureProblems(root)).toEqual([]);
  });

  it('flags an emulator on every interface, a writable root, a missing /tmp and code handed to the runtime user', () => {
    const dir = mkdtempSync(join(tmpdir(), 'compose-defaults-'));
    try {
      writeFileSync(
        join(dir, 'docker-compose.yml'),
        [
          'services:',
          '  gateway: &gateway',
          '    build: { context: ., target: gateway }',
          '    read_only: true',
          '    tmpfs: [/tmp]',
          '    ports: ["8080:8080"]',
          '  gateway-2:',
          '    <<: *gateway',
          '    ports: ["8088:8080"]',
          '  provider-emulator:',
          '    profiles: [dev]',
          '    build: { context: ., target: provider-emulator }',
          '    ports: ["${PROVIDER_EMULATOR_PUBLISH:-8082}:8082", "127.0.0.1:9000:9000"]',
          '    read_only: true',
          '  nats:',
          '    image: nats',
          '  mailcatcher:',
          '    image: mail',
          '    ports: [{ target: 1080, published: 1080 }]',
          '',
        ].join('\n'),
      );
      writeFileSync(
        join(dir, 'Dockerfile'),
        [
          'FROM base AS runtime',
          'RUN mkdir -p /app/.data && chown 10001:10001 /app/.data',
          'FROM runtime AS gateway',
          'COPY --from=build /src/dist/apps/gateway ./',
          'FROM runtime AS provider-emulator',
          'COPY --from=build --chown=10001:10001 /src/dist/tools/provider-emulator ./',
          'RUN chown -R 10001 /app',
          '',
        ].join('\n'),
      );
      expect(composeExposureProblems(dir)).toEqual([
        'provider-emulator: port ${PROVIDER_EMULATOR_PUBLISH:-8082}:8082 is published on every interface, not 127.0.0.1',
        'provider-emulator: no tmpfs on /tmp',
        'provider-emulator: its stage hands its code to the runtime user (COPY --from=build --chown=10001:10001 /src/dist/tools/provider-emulator ./)',
        'provider-emulator: its stage chowns /app (RUN chown -R 10001 /app)',
        'nats: not read_only: true',
        'mailcatcher: port {"target":1080,"published":1080} is published on every interface, not 127.0.0.1',
      ]);
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });

  it('keeps the bot outbox on its volume (the one place besides /tmp the bot writes)', () => {
    const compose = readFileSync(join(root, 'docker-compose.yml'), 'utf8');
    expect(compose).toMatch(/BOT_OUTBOX_PATH: \/app\/\.data\/outbox\.sqlite/);
    expect(compose).toMatch(/- botdata:\/app\/\.data/);
  });
});
