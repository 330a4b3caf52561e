import { spawnSync } from 'node:child_process';
import { chmodSync, existsSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { freePort, freshDatabase } from '@wordgame/testkit';
import { prepareTestSetup, serverAnswers, summaryLine, type TestSetup } from './setup.js';

describe('the test command set-up', () => {
  describe('PostgreSQL', () => {
    let embedded: TestSetup | undefined;
    afterAll(async () => {
      await embedded?.stop();
    });

    it('with nothing answering at DATABASE_URL, starts an embedded PostgreSQL that serves the tests and stops it', async () => {
      const silent = `postgres://postgres@127.0.0.1:${await freePort()}/test`;
      const lines: string[] = [];
      embedded = await prepareTestSetup({
        env: { PATH: process.env['PATH'], DATABASE_URL: silent },
        tools: 'none',
        install: false,
        log: (line) => lines.push(line),
      });
      const url = embedded.env['DATABASE_URL'] as string;
      expect(url).toMatch(/^postgres:\/\/postgres@127\.0\.0\.1:\d+\/test$/);
      expect(url).not.toBe(silent);
      expect(embedded.missing).toEqual([]);
      expect(embedded.provided).toEqual([expect.stringMatching(/^PostgreSQL embedded 127\.0\.0\.1:\d+$/)]);
      expect(lines.join('\n')).toContain(`no PostgreSQL at ${new URL(silent).host}`);

      // What the suites do with it: a database each, UTF-8 text as the machine's server sorts and folds it.
      const db = await freshDatabase('setup', url);
      try {
        await db.query('create table t (id bigint generated always as identity primary key, name text not null)');
        await db.query('insert into t (name) values ($1), ($2)', ['Фишки', 'chips']);
        const rows = await db.query<{ name: string; lower: string }>('select name, lower(name) as lower from t order by id');
        expect(rows.rows).toEqual([
          { name: 'Фишки', lower: 'фишки' },
          { name: 'chips', lower: 'chips' },
        ]);
        const settings = await db.query<{ encoding: string; collate: string }>(
          `select current_setting('server_encoding') as encoding, datcollate as collate from pg_database where datname = current_database()`,
        );
        expect(settings.rows[0]).toEqual({ encoding: 'UTF8', collate: 'C.UTF-8' });
      } finally {
        await db.drop();
      }

      // A second set-up finds that server answering and uses it as it is.
      const again = await prepareTestSetup({
        env: { PATH: process.env['PATH'], DATABASE_URL: url },
        tools: 'none',
        install: false,
        log: () => undefined,
      });
      expect(again.env['DATABASE_URL']).toBe(url);
      expect(again.provided).toEqual([`PostgreSQL ${new URL(url).host}`]);
      await again.stop();
      expect(await serverAnswers(url)).toBeUndefined();

      const dataDir = /embedded PostgreSQL on 127\.0\.0\.1:\d+, data in (\S+) /.exec(lines.join('\n'))?.[1] as string;
      expect(existsSync(dataDir)).toBe(true);
      await embedded.stop();
      expect(await serverAnswers(url)).toEqual(expect.any(String));
      expect(existsSync(dataDir)).toBe(false);
    }, 180_000);
  });

  describe('the one line', () => {
    let dir: string;
    beforeEach(() => {
      dir = mkdtempSync(join(tmpdir(), 'setup-path-'));
    });
    afterEach(() => rmSync(dir, { recursive: true, force: true }));

    it('with an empty PATH and no installing, names every program it could not provide and how to provide each', async () => {
      const setup = await prepareTestSetup({ env: { PATH: '' }, tools: 'ci', install: false, postgres: false, log: () => undefined });
      // nats-server may still be found where Debian puts it (/usr/sbin), which is off a non-root PATH.
      const names = setup.missing.map((m) => m.name).filter((n) => n !== 'nats-server');
      expect(names).toEqual(['openssl', 'git', 'flatc', 'jq', 'chromium', 'kubectl', 'promtool', 'amtool', 'psql', 'pg_isready']);
      expect(setup.summary.split('\n')).toHaveLength(1);
      expect(setup.summary).toMatch(/^test set-up: could not provide openssl \(as root: apt-get install openssl\), git /);
      expect(setup.summary).toContain('flatc (as root: apt-get install flatbuffers-compiler)');
      expect(setup.summary).toContain('chromium (as root: apt-get install chromium; or set CHROMIUM_PATH)');
      expect(setup.summary).toContain(
        "kubectl (kubectl 1.27+ is in neither Debian bookworm nor the npm registry: install it from Kubernetes' packages, or set KUBECTL)",
      );
      expect(setup.summary).toContain('promtool (as root: apt-get install prometheus)');
      expect(setup.summary).toMatch(/; the tests that need them will fail$/);
    });

    it('the test scope leaves out what only CI checks run; a program on PATH is provided, not reported', async () => {
      const flatc = join(dir, 'flatc');
      writeFileSync(flatc, '#!/bin/sh\nexit 0\n');
      chmodSync(flatc, 0o755);
      const setup = await prepareTestSetup({ env: { PATH: dir }, tools: 'tests', install: false, postgres: false, log: () => undefined });
      expect(setup.provided).toContain(`flatc ${flatc}`);
      const names = setup.missing.map((m) => m.name);
      expect(names).not.toContain('flatc');
      expect(names).not.toContain('promtool');
      expect(names).toEqual(expect.arrayContaining(['openssl', 'jq', 'chromium']));
    });

    it('names a wrong override with what is wrong about it', async () => {
      const setup = await prepareTestSetup({
        env: { PATH: '', CHROMIUM_PATH: join(dir, 'no-such-chromium') },
        tools: 'tests',
        install: false,
        postgres: false,
        log: () => undefined,
      });
      expect(setup.summary).toContain(
        `chromium (CHROMIUM_PATH=${join(dir, 'no-such-chromium')} is not an executable file; as root: apt-get install chromium; or set CHROMIUM_PATH)`,
      );
      expect(existsSync(join(dir, 'no-such-chromium'))).toBe(false);
    });

    it('says so when nothing is missing', () => {
      expect(summaryLine([])).toBe('test set-up: everything the tests need is here');
    });
  });
});

describe('where the tests find their programs', () => {
  it('no test or test helper names a fixed path to Chromium or nats-server: they go through the test kit resolvers', () => {
    const root = join(import.meta.dirname, '../../..');
    const fixedPath = String.raw`['"\`]/usr/(s?bin|lib/chromium)/(chromium|chromium-browser|google-chrome|nats-server)['"\`]`;
    const testCode = [
      ':(glob)**/test/**/*.ts',
      ':(glob)**/*.test.ts',
      ':(glob)libs/testkit/src/**/*.ts',
      ':(exclude)libs/testkit/src/binaries.ts',
    ];
    const run = spawnSync('git', ['grep', '-n', '-E', fixedPath, '--', ...testCode], { cwd: root, encoding: 'utf8' });
    expect(run.stdout).toBe('');
    expect({ status: run.status, stderr: run.stderr }).toEqual({ status: 1, stderr: '' });
  });
});
