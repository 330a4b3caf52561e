import { execFileSync } from 'node:child_process';
import { X509Certificate } from 'node:crypto';
import { existsSync, mkdtempSync, readFileSync, readdirSync, rmSync, statSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { CONTAINER_UID, ensureDevCerts, ensureNatsCert, issueLeaf, makeCa } from './certs.js';

describe('dev certificates', () => {
  let dir: string;
  beforeAll(() => {
    dir = mkdtempSync(join(tmpdir(), 'devcerts-'));
  });
  afterAll(() => rmSync(dir, { recursive: true, force: true }));

  it('makes a CA, a gateway server pair and a bot client pair that verify against the CA', () => {
    const certs = ensureDevCerts(dir);
    expect(certs.created).toBe(true);
    const ca = new X509Certificate(readFileSync(certs.ca.cert));
    const gateway = new X509Certificate(readFileSync(certs.gateway.cert));
    const bot = new X509Certificate(readFileSync(certs.bot.cert));
    expect(ca.ca).toBe(true);
    expect(gateway.verify(ca.publicKey)).toBe(true);
    expect(bot.verify(ca.publicKey)).toBe(true);
    expect(gateway.subjectAltName).toContain('DNS:localhost');
    expect(gateway.subjectAltName).toContain('IP Address:127.0.0.1');
    expect(gateway.checkHost('localhost')).toBe('localhost');
    expect(bot.subject).toContain('CN=bot');
    expect(execFileSync('openssl', ['x509', '-in', certs.bot.cert, '-noout', '-ext', 'extendedKeyUsage']).toString()).toContain(
      'TLS Web Client Authentication',
    );
    expect(execFileSync('openssl', ['x509', '-in', certs.gateway.cert, '-noout', '-ext', 'extendedKeyUsage']).toString()).toContain(
      'TLS Web Server Authentication',
    );
    expect(execFileSync('openssl', ['verify', '-CAfile', certs.ca.cert, certs.gateway.cert, certs.bot.cert]).toString()).toMatch(
      /OK[\s\S]*OK/,
    );
  });

  it("lays out per-service folders with only that service's pair and the CA certificate, readable by the containers' uid", () => {
    ensureDevCerts(dir);
    for (const service of ['gateway', 'bot']) {
      const folder = join(dir, service);
      expect(readdirSync(folder).sort()).toEqual(['ca.crt', 'tls.crt', 'tls.key']);
      expect(readFileSync(join(folder, 'tls.crt'), 'utf8')).toBe(readFileSync(join(dir, `${service}.crt`), 'utf8'));
      expect(readFileSync(join(folder, 'tls.key'), 'utf8')).toBe(readFileSync(join(dir, `${service}.key`), 'utf8'));
      expect(readFileSync(join(folder, 'ca.crt'), 'utf8')).toBe(readFileSync(join(dir, 'ca.crt'), 'utf8'));
      // The CA key is never in a folder a container mounts.
      expect(readdirSync(folder).some((f) => readFileSync(join(folder, f), 'utf8') === readFileSync(join(dir, 'ca.key'), 'utf8'))).toBe(
        false,
      );
      const key = statSync(join(folder, 'tls.key'));
      const readableByContainer =
        (key.mode & 0o004) !== 0 || ((key.mode & 0o040) !== 0 && key.gid === CONTAINER_UID) || key.uid === CONTAINER_UID;
      expect(readableByContainer).toBe(true);
      expect(key.mode & 0o002).toBe(0);
    }
    expect(existsSync(join(dir, 'gateway', 'ca.key'))).toBe(false);
  });

  it('is idempotent: a second run touches nothing', () => {
    const before = statSync(join(dir, 'ca.crt')).mtimeMs;
    const again = ensureDevCerts(dir);
    expect(again.created).toBe(false);
    expect(statSync(join(dir, 'ca.crt')).mtimeMs).toBe(before);
  });

  it('can issue a leaf without any extended key usage (for the bot-link identity tests)', () => {
    const ca = { cert: join(dir, 'ca.crt'), key: join(dir, 'ca.key') };
    const bare = issueLeaf(join(dir, 'bare'), 'bare', ca, { commonName: 'bot', usage: 'none' });
    expect(new X509Certificate(readFileSync(bare.cert)).keyUsage).toBeUndefined();
  });

  it('can issue an already-expired leaf and one from another CA (for mTLS edge-case tests)', () => {
    const ca = makeCa(join(dir, 'other'), 'other-ca');
    const expired = issueLeaf(join(dir, 'other'), 'expired', ca, { commonName: 'bot', usage: 'client', days: 0 });
    const cert = new X509Certificate(readFileSync(expired.cert));
    expect(new Date(cert.validTo).getTime()).toBeLessThan(Date.now());
    const devCa = new X509Certificate(readFileSync(join(dir, 'ca.crt')));
    expect(cert.verify(devCa.publicKey)).toBe(false);
  });

  it("makes the NATS server's pair from the same CA, naming the Service `nats`, and remakes it for a new CA", () => {
    const nats = ensureNatsCert(dir);
    expect(readdirSync(nats.dir).sort()).toEqual(['ca.crt', 'tls.crt', 'tls.key']);
    const cert = new X509Certificate(readFileSync(nats.cert));
    expect(cert.checkHost('nats')).toBe('nats');
    expect(cert.verify(new X509Certificate(readFileSync(join(dir, 'ca.crt'))).publicKey)).toBe(true);
    expect(execFileSync('openssl', ['x509', '-in', nats.cert, '-noout', '-ext', 'extendedKeyUsage']).toString()).toContain(
      'TLS Web Server Authentication',
    );
    expect(ensureNatsCert(dir).created).toBe(false);
    const fresh = mkdtempSync(join(tmpdir(), 'devcerts-nats-'));
    try {
      ensureDevCerts(fresh);
      ensureNatsCert(fresh);
      rmSync(join(fresh, 'bot.key'));
      ensureDevCerts(fresh); // an incomplete set: a new CA
      expect(ensureNatsCert(fresh).created).toBe(true);
      const remade = new X509Certificate(readFileSync(join(fresh, 'nats', 'tls.crt')));
      expect(remade.verify(new X509Certificate(readFileSync(join(fresh, 'ca.crt'))).publicKey)).toBe(true);
    } finally {
      rmSync(fresh, { recursive: true, force: true });
    }
  });
});
