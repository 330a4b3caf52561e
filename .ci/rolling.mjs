// The rolling deploy of docs/upgrades.md, tested through compose under load: with the scale profile
// up (gateway and gateway-2, two backends, NATS), a load of signed-in wallet reads (each a gateway ->
// backend call) runs on both gateways while every backend and then every gateway is replaced by one
// running the next image (localhost/wordgame/<service>:<tag>-next, WORDGAME_TAG given to compose):
//   backend: `up -d --no-deps --no-recreate --scale backend=N+1 backend`, wait until the new replica is
//            healthy, then stop the old one (SIGTERM: /readyz 503, GOAWAY, in-flight calls finish) and remove it;
//   gateway: `up -d --no-deps --force-recreate gateway` (SIGTERM to the old one, then the new one), wait healthy; then gateway-2.
// The load plays the L4 balancer in front of the gateways, as one is configured for this product: it
// health-checks each gateway's /readyz every HEALTH_EVERY_MS (well inside GATEWAY_DRAIN_DELAY_MS, 3 s
// here) and sends new requests only to gateways that answered 200 (a draining gateway answers 503);
// a request whose connection is refused (it never reached a gateway) goes to the other gateway, as a
// balancer does on a failed connect; any other error and any answer but 200 is a failed request.
// Passes when no request failed. (Without the health check, a load that keeps opening connections to
// a gateway until its listener closes sees a few resets: the kernel resets the connections still in
// the accept queue when a listening socket closes; no server can answer those.)
// Usage (environment): ROLLING_COMPOSE="docker-compose --env-file F" ROLLING_PROJECT=P
//   ROLLING_GATEWAYS=http://127.0.0.1:A,http://127.0.0.1:B [ROLLING_TAG=ci] node .ci/rolling.mjs
import { execFile } from 'node:child_process';
import { randomBytes } from 'node:crypto';

const started = Date.now();
const say = (msg) => console.log(`[rolling ${((Date.now() - started) / 1000).toFixed(1)}s] ${msg}`);
const sleep = (ms) => new Promise((r) => setTimeout(r, ms));
const need = (name) => {
  const v = process.env[name];
  if (!v) throw new Error(`set ${name}`);
  return v;
};
const composeCmd = need('ROLLING_COMPOSE').split(' ').filter(Boolean);
const project = need('ROLLING_PROJECT');
const gateways = need('ROLLING_GATEWAYS').split(',');
const tag = process.env.ROLLING_TAG ?? 'ci';
const next = `${tag}-next`;
const CONCURRENCY = 8;
const HEALTH_EVERY_MS = 500;
/** Per gateway: in rotation (its last /readyz answered 200). */
const inRotation = new Map(gateways.map((g) => [g, true]));

/** Runs a command without blocking the event loop (the load keeps running meanwhile); its stdout, trimmed. */
const run = (cmd, args, env = {}) =>
  new Promise((resolve, reject) => {
    execFile(cmd, args, { encoding: 'utf8', env: { ...process.env, ...env }, maxBuffer: 16 * 1024 * 1024 }, (err, stdout, stderr) =>
      err ? reject(new Error(`${cmd} ${args.join(' ')}: ${stderr || stdout || err.message}`)) : resolve(stdout.trim()),
    );
  });
/** The stack's compose command; the replacement runs with WORDGAME_TAG=<next> (the shell's value wins over the env file's). */
const compose = (...args) => run(composeCmd[0], [...composeCmd.slice(1), ...args], { WORDGAME_TAG: next });
/** Containers of one compose service (the engine's view: names and health). */
const containers = async (service) => {
  const out = await run('podman', [
    'ps',
    '--filter',
    `label=com.docker.compose.project=${project}`,
    '--filter',
    `label=com.docker.compose.service=${service}`,
    '--format',
    '{{.Names}} {{.Image}} {{.Status}}',
  ]);
  return out
    .split('\n')
    .filter(Boolean)
    .map((l) => {
      const [name, image, ...status] = l.split(' ');
      return { name, image, healthy: status.join(' ').endsWith('(healthy)') };
    });
};

async function eventually(what, fn, timeoutMs = 120_000) {
  const until = Date.now() + timeoutMs;
  for (;;) {
    const v = await fn();
    if (v) return v;
    if (Date.now() > until) throw new Error(`timed out: ${what}`);
    await sleep(1000);
  }
}

const stats = { ok: 0, rerouted: 0, failed: 0, reasons: new Map() };
const refused = (err) => {
  const code = err?.cause?.code ?? err?.code;
  return code === 'ECONNREFUSED';
};
/** One wallet read through the gateways, first choice `i`; a refused connection goes to the other gateway. */
async function request(i, token) {
  const healthy = gateways.filter((g) => inRotation.get(g));
  const pool = healthy.length > 0 ? healthy : gateways;
  for (let attempt = 0; attempt < pool.length; attempt++) {
    const gw = pool[(i + attempt) % pool.length];
    try {
      const res = await fetch(`${gw}/api/v1/user/wallet`, { headers: { authorization: `Bearer ${token}` } });
      const body = await res.text();
      if (res.status === 200) return 'ok';
      // The error code and request id say which side answered (draining, backend_unavailable, ...).
      let code = '';
      try {
        code = ` ${JSON.parse(body).error?.code ?? ''}`;
      } catch {
        code = ` (no JSON body)`;
      }
      const at = ((Date.now() - started) / 1000).toFixed(1);
      return `HTTP ${res.status}${code} from ${gw} at ${at}s, x-request-id ${res.headers.get('x-request-id') ?? '-'}`;
    } catch (err) {
      if (refused(err)) {
        stats.rerouted++;
        continue;
      }
      return `${err?.cause?.code ?? err?.message ?? String(err)} from ${gw}`;
    }
  }
  return 'every gateway refused the connection';
}

let failed = false;
let stop = false;
try {
  for (const service of ['backend', 'gateway'])
    await run('podman', ['tag', `localhost/wordgame/${service}:${tag}`, `localhost/wordgame/${service}:${next}`]);
  const signup = await fetch(`${gateways[0]}/api/v1/session/direct`, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify({
      email: `rolling-${randomBytes(4).toString('hex')}@example.test`,
      password: 'rolling password 1',
      mode: 'signup',
      subtype: 'web',
    }),
  });
  const { token } = await signup.json();
  if (signup.status !== 200 || !token) throw new Error(`direct session: ${signup.status}`);

  // The balancer's health checks: /readyz of each gateway.
  const checks = gateways.map(async (g) => {
    while (!stop) {
      const ok = await fetch(`${g}/readyz`, { signal: AbortSignal.timeout(1000) }).then(
        async (res) => (await res.arrayBuffer(), res.status === 200),
        () => false,
      );
      if (inRotation.get(g) !== ok) say(`balancer: ${g} ${ok ? 'back in rotation' : 'out of rotation (/readyz not 200)'}`);
      inRotation.set(g, ok);
      await sleep(HEALTH_EVERY_MS);
    }
  });
  let n = 0;
  const workers = Array.from({ length: CONCURRENCY }, async () => {
    while (!stop) {
      const outcome = await request(n++, token);
      if (outcome === 'ok') stats.ok++;
      else {
        stats.failed++;
        stats.reasons.set(outcome, (stats.reasons.get(outcome) ?? 0) + 1);
      }
    }
  });
  await sleep(3000);
  say(`load running on ${gateways.length} gateways (${CONCURRENCY} concurrent wallet reads): ${stats.ok} ok so far`);

  // Backends, one at a time: a new replica first, then the old one drained away.
  const oldBackends = await containers('backend');
  if (oldBackends.length < 2) throw new Error(`expected two backends, found ${oldBackends.length}`);
  for (const old of oldBackends) {
    const before = new Set((await containers('backend')).map((c) => c.name));
    await compose('up', '-d', '--no-deps', '--no-recreate', '--scale', `backend=${before.size + 1}`, 'backend');
    const fresh = await eventually('the new backend healthy', async () =>
      (await containers('backend')).find((c) => !before.has(c.name) && c.healthy),
    );
    const okBefore = stats.ok;
    await run('podman', ['stop', '-t', '30', old.name]);
    await run('podman', ['rm', old.name]);
    say(
      `backend ${old.name} replaced by ${fresh.name} (${fresh.image}); ${stats.ok - okBefore} reads served meanwhile, ${stats.failed} failed so far`,
    );
  }
  // Gateways, one at a time: the balancer (here: the load) sends new connections to the other meanwhile.
  for (const service of ['gateway', 'gateway-2']) {
    const [old] = await containers(service);
    await compose('up', '-d', '--no-deps', '--force-recreate', service);
    const fresh = await eventually(`${service} healthy again`, async () => (await containers(service)).find((c) => c.healthy));
    if (!fresh.image.endsWith(`:${next}`)) throw new Error(`${service} runs ${fresh.image}, not :${next}`);
    say(
      `${service} ${old?.name} replaced (${fresh.image}); ${stats.failed} failed so far, ${stats.rerouted} refused connections sent to the other gateway`,
    );
  }
  await sleep(3000);
  stop = true;
  await Promise.all([...workers, ...checks]);
  const images = [...(await containers('backend')), ...(await containers('gateway')), ...(await containers('gateway-2'))].map(
    (c) => c.image,
  );
  if (images.some((i) => !i.endsWith(`:${next}`))) throw new Error(`not every replica runs :${next}: ${images.join(' ')}`);
  say(
    `rolling deploy done: ${stats.ok} reads ok, ${stats.failed} failed, ${stats.rerouted} refused connections rerouted; every backend and gateway on :${next}`,
  );
  if (stats.failed > 0) throw new Error(`failed requests: ${JSON.stringify([...stats.reasons])}`);
  if (stats.ok < 100) throw new Error(`only ${stats.ok} requests: the load did not run`);
} catch (err) {
  failed = true;
  stop = true;
  console.error(`ROLLING FAILED: ${err instanceof Error ? err.message : String(err)}`);
}
say(failed ? 'failed' : 'passed');
process.exit(failed ? 1 : 0);
