// `tsx tools/k8s/src/cli.ts validate`: renders deploy/k8s's overlays and validates every object
// against the Kubernetes API schemas and for unknown fields. `… play <image-tag>`: runs the dev
// overlay with `podman kube play` against the CI images (localhost/wordgame/<service>:<tag>, built
// by .ci/images.sh) and waits for every pod's readiness probe. Run as root (podman, a database).
import { execFile, execFileSync, spawnSync } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { chmodSync, chownSync, mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { createConnection, createServer, type Server } from 'node:net';
import { tmpdir } from 'node:os';
import { promisify } from 'node:util';
import { join, resolve } from 'node:path';
import { stringify } from 'yaml';
import { natsUserKeys, renderOverlay, type K8sObject, type K8sOverlay } from '@wordgame/testkit';
import { planPodmanRun, replicasOf, type readinessProbes } from './podman.js';
import { unknownFields } from './strict.js';
import { validateSchemas } from './validate.js';

const root = resolve(import.meta.dirname, '../../..');
const started = Date.now();
const say = (msg: string) => console.log(`[k8s ${((Date.now() - started) / 1000).toFixed(1)}s] ${msg}`);
const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

async function validate(): Promise<boolean> {
  let ok = true;
  for (const overlay of ['dev', 'production'] as K8sOverlay[]) {
    const t = Date.now();
    const objects = renderOverlay(root, overlay);
    const schema = await validateSchemas(objects);
    const strict = unknownFields(objects);
    const bad = schema.flatMap((r, i) => [...r.problems, ...(strict[i] ?? [])].map((p) => `${r.object}: ${p}`));
    const kinds = [...new Set(objects.map((o) => o.kind))].sort().join(', ');
    if (bad.length > 0) {
      ok = false;
      for (const line of bad) console.log(`  INVALID ${overlay} ${line}`);
    }
    say(
      `${overlay}: ${objects.length} objects (${kinds}), ${objects.length - new Set(bad.map((b) => b.split(':')[0])).size} valid, ${bad.length} problems (${Date.now() - t} ms)`,
    );
  }
  return ok;
}

// Synchronous podman calls block the event loop, and with it the database forwarder: only for quick calls.
const podman = (args: string[]) => spawnSync('podman', args, { encoding: 'utf8' });
/** A podman call that lets the forwarder serve meanwhile (waits, execs of probes). */
const podmanAsync = async (args: string[]): Promise<{ status: number; stdout: string }> => {
  try {
    const r = await promisify(execFile)('podman', args, { encoding: 'utf8' });
    return { status: 0, stdout: r.stdout };
  } catch (err: unknown) {
    const e = err as { code?: number; stdout?: string };
    return { status: typeof e.code === 'number' ? e.code : 1, stdout: e.stdout ?? '' };
  }
};
const must = (args: string[]): string => {
  const r = podman(args);
  if (r.status !== 0) throw new Error(`podman ${args.slice(0, 3).join(' ')}: ${r.stderr || r.stdout}`);
  return r.stdout.trim();
};
const b64 = (v: string) => Buffer.from(v).toString('base64');
const sql = (q: string) => execFileSync('psql', ['-h', '127.0.0.1', '-U', 'postgres', '-d', 'postgres', '-qtAc', q], { encoding: 'utf8' });

/** The dev overlay as this machine can run it: the CI images, fresh secrets, the stand-ins. */
function adapt(objects: K8sObject[], tag: string, databaseUrl: string): { objects: K8sObject[]; standIns: string[] } {
  const nats = { gateway: natsUserKeys(), backend: natsUserKeys() };
  const fresh: Record<string, Record<string, string>> = {
    'wordgame-database': { DATABASE_URL: databaseUrl },
    'wordgame-service-tokens': {
      BACKEND_SERVICE_TOKEN: randomBytes(24).toString('hex'),
      GATEWAY_INTERNAL_TOKEN: randomBytes(24).toString('hex'),
    },
    'wordgame-platform': {
      PLATFORM_BOT_TOKEN: `12345:${randomBytes(12).toString('hex')}`,
      BACKEND_VK_APP_SECRET: randomBytes(12).toString('hex'),
    },
    'wordgame-nats': {
      NATS_GATEWAY_NKEY_SEED: nats.gateway.seed,
      NATS_GATEWAY_NKEY: nats.gateway.publicKey,
      NATS_BACKEND_NKEY_SEED: nats.backend.seed,
      NATS_BACKEND_NKEY: nats.backend.publicKey,
    },
  };
  const standIns = [
    "StatefulSet/postgres, Service/postgres: stood in by the machine's PostgreSQL (Docker Hub is out of reach), reached through a forwarder on the pod network's gateway",
    "Deployment/nats: the image's nats-server stood in by Debian's (/usr/sbin/nats-server mounted into the backend image), same arguments and ops/nats/nats-k8s.conf; its probes' wget (the nats image's busybox) becomes node's fetch of the same loopback URL",
  ];
  const out = structuredClone(objects).filter(
    (o) => !(o.metadata.name === 'postgres' || (o.kind === 'Secret' && o.metadata.name.startsWith('postgres-dev'))),
  );
  for (const o of out) {
    if (o.kind === 'Secret') {
      const base = Object.keys(fresh).find((n) => o.metadata.name.startsWith(`${n}-`));
      if (base)
        o['data'] = { ...(o['data'] as object), ...Object.fromEntries(Object.entries(fresh[base] ?? {}).map(([k, v]) => [k, b64(v)])) };
    }
    const spec = (
      o['spec'] as {
        template?: {
          spec?: {
            containers: {
              image: string;
              command?: string[];
              volumeMounts?: unknown[];
              readinessProbe?: { exec?: { command: string[] } };
              livenessProbe?: { exec?: { command: string[] } };
            }[];
            volumes?: unknown[];
          };
        };
      }
    )?.template?.spec;
    for (const c of spec?.containers ?? []) {
      c.image = c.image.replace(/^localhost\/wordgame\/([a-z-]+):dev$/, `localhost/wordgame/$1:${tag}`);
      if (c.image.startsWith('docker.io/library/nats:')) {
        c.image = `localhost/wordgame/backend:${tag}`;
        c.volumeMounts = [
          ...(c.volumeMounts ?? []),
          { name: 'nats-server-binary', mountPath: '/usr/local/bin/nats-server', readOnly: true },
        ];
        spec!.volumes = [
          ...(spec!.volumes ?? []),
          { name: 'nats-server-binary', hostPath: { path: '/usr/sbin/nats-server', type: 'File' } },
        ];
        // The backend image has node, not busybox's wget: the same GET of the same loopback URL.
        for (const probe of [c.readinessProbe, c.livenessProbe]) {
          const url = probe?.exec?.command[0] === 'wget' ? probe.exec.command.at(-1) : undefined;
          if (probe?.exec && url)
            probe.exec.command = ['node', '-e', `fetch('${url}').then((r) => process.exit(r.ok ? 0 : 1), () => process.exit(1))`];
        }
      }
    }
  }
  return { objects: out, standIns };
}

/** A TCP forwarder to the machine's PostgreSQL for pods on `subnet` (a.b.c.), refusing anyone else. */
function forwardPostgres(subnetPrefix: string): Promise<{ server: Server; port: number }> {
  return new Promise((ok, fail) => {
    const server = createServer((s) => {
      const from = (s.remoteAddress ?? '').replace(/^::ffff:/, '');
      if (!from.startsWith(subnetPrefix)) return s.destroy();
      const up = createConnection(5432, '127.0.0.1');
      s.pipe(up).pipe(s);
      up.on('error', () => s.destroy());
      s.on('error', () => up.destroy());
    });
    server.once('error', fail);
    server.listen(0, '0.0.0.0', () => ok({ server, port: (server.address() as { port: number }).port }));
  });
}

async function ready(probe: ReturnType<typeof readinessProbes>[number], ip: string, container: string): Promise<boolean> {
  if (probe.probe?.httpGet) {
    try {
      const r = await fetch(`http://${ip}:${probe.port}${probe.probe.httpGet.path ?? '/'}`, { signal: AbortSignal.timeout(3_000) });
      return r.status >= 200 && r.status < 400;
    } catch {
      return false;
    }
  }
  if (probe.probe?.exec) return (await podmanAsync(['exec', container, ...probe.probe.exec.command])).status === 0;
  return podman(['container', 'inspect', '-f', '{{.State.Running}}', container]).stdout.trim() === 'true';
}

/**
 * Checks the running pods against the deploy defaults: each container's root file system is
 * read-only (podman's ReadonlyRootfs), a write into /app fails in each service's container, the
 * gateways and backends logged their NATS connection with TLS, and NATS's monitoring port (8222)
 * refuses a connection from outside its pod. Returns what was checked and each breach.
 */
async function deployDefaults(
  pods: readonly { w: K8sObject; pod: string }[],
  natsIp: string,
): Promise<{ checked: string[]; problems: string[] }> {
  const problems: string[] = [];
  let containers = 0;
  for (const { w, pod } of pods) {
    const spec = (w['spec'] as { template: { spec: { containers: { name: string; image: string }[] } } }).template.spec;
    for (const c of spec.containers) {
      const name = `${pod}-${c.name}`;
      containers += 1;
      if (podman(['container', 'inspect', name, '--format', '{{.HostConfig.ReadonlyRootfs}}']).stdout.trim() !== 'true')
        problems.push(`${name}: root file system not read-only`);
      if (!/wordgame\/(backend|gateway|bot|platform-emulator|provider-emulator|mailcatcher):/.test(c.image) || c.name === 'nats') continue;
      const write = await podmanAsync(['exec', name, 'node', '-e', "require('fs').writeFileSync('/app/main.js', '')"]);
      if (write.status === 0) problems.push(`${name}: /app/main.js could be written`);
      if (c.name === 'gateway' || c.name === 'backend') {
        const logs = podman(['logs', name]);
        const connected = `${logs.stdout}${logs.stderr}`
          .split('\n')
          .some((l) => l.includes('"nats connected"') && l.includes('"tls":true'));
        if (!connected) problems.push(`${name}: no "nats connected" with tls true in its log`);
      }
    }
  }
  const monitor = await new Promise<string>((done) => {
    const socket = createConnection(8222, natsIp);
    socket.setTimeout(3_000, () => (socket.destroy(), done('timed out')));
    socket.once('connect', () => (socket.destroy(), done('connected')));
    socket.once('error', (err: NodeJS.ErrnoException) => done(err.code ?? 'error'));
  });
  if (monitor === 'connected') problems.push(`nats ${natsIp}:8222 (monitoring) accepts connections from the pod network`);
  return {
    checked: [
      `${containers} containers with a read-only root, /app unwritable in each service's`,
      'gateways and backends connected to NATS over TLS',
      `NATS monitoring from the pod network: ${monitor}`,
    ],
    problems,
  };
}

async function play(tag: string): Promise<boolean> {
  const run = `wordgame-k8s-${process.pid}`;
  const database = `wordgame_k8s_${process.pid}`;
  const work = mkdtempSync(join(tmpdir(), 'wordgame-k8s-play-'));
  chmodSync(work, 0o755);
  const pods: string[] = [];
  const secrets: string[] = [];
  let forwarder: Server | undefined;
  let ok = true;
  // What exists before the play: the cleanup removes every pod and volume that appeared after it
  // (kube play names some itself: a Job's pod, a claim's volume), then checks that none is left.
  const listed = (what: 'pod' | 'volume') =>
    new Set(
      // `pod ls` refuses -q beside --format ("quiet and format cannot be used together"): names by --format alone.
      // A listing that fails throws (must): an empty answer must never read as "none is left".
      must([what, 'ls', ...(what === 'pod' ? ['--format', '{{.Name}}'] : ['-q'])])
        .split('\n')
        .filter(Boolean),
    );
  const podsBefore = listed('pod');
  const volumesBefore = listed('volume');
  try {
    must(['network', 'create', run]);
    const gateway = must(['network', 'inspect', run, '--format', '{{range .Subnets}}{{.Gateway}}{{end}}']);
    const prefix = gateway.replace(/\d+$/, '');
    const fwd = await forwardPostgres(prefix);
    forwarder = fwd.server;
    const password = randomBytes(16).toString('hex');
    if (!sql(`select 1 from pg_roles where rolname = 'wordgame_k8s'`).trim()) sql(`create role wordgame_k8s login`);
    sql(`alter role wordgame_k8s password '${password}'`);
    sql(`create database ${database} owner wordgame_k8s`);
    const rendered = renderOverlay(root, 'dev');
    const { objects, standIns } = adapt(rendered, tag, `postgres://wordgame_k8s:${password}@${gateway}:${fwd.port}/${database}`);
    // Ten addresses per workload, one per replica; the jobs after the workloads.
    const ipOf = (i: number, replica = 0) => `${prefix}${20 + i * 10 + replica}`;
    const secretDir = join(work, 'secrets');
    const plan = planPodmanRun(objects, ipOf, secretDir);
    for (const { name, files } of plan.secretFiles) {
      mkdirSync(join(secretDir, name), { recursive: true, mode: 0o755 });
      for (const [file, content] of Object.entries(files)) {
        writeFileSync(join(secretDir, name, file), content, { mode: 0o440 });
        chownSync(join(secretDir, name, file), 0, 10001);
      }
    }
    for (const line of standIns) say(`stand-in: ${line}`);
    for (const { object, why } of plan.notRun) say(`not run by podman: ${object}: ${why}`);
    for (const s of plan.envSecrets) {
      const file = join(work, `${s.name}.json`);
      writeFileSync(file, s.json, { mode: 0o600 });
      podman(['secret', 'rm', s.name]);
      must(['secret', 'create', s.name, file]);
      secrets.push(s.name);
    }
    const yaml = (docs: K8sObject[]) => docs.map((d) => stringify(d)).join('---\n');

    // The migration Job first (as a pod): the workloads start only after it exited 0.
    for (const [j, job] of plan.jobs.entries()) {
      const file = join(work, `job-${j}.yaml`);
      writeFileSync(file, yaml([job]));
      const t = Date.now();
      must(['kube', 'play', '--network', run, '--ip', ipOf(plan.workloads.length + j), file]);
      pods.push(job.metadata.name);
      const container = `${job.metadata.name}-${(job['spec'] as { containers: { name: string }[] }).containers[0]?.name ?? ''}`;
      const code = (await podmanAsync(['wait', container])).stdout.trim();
      const logs = podman(['logs', container]);
      if (code !== '0') throw new Error(`Job ${job.metadata.name} exited ${code}: ${logs.stdout}${logs.stderr}`);
      say(`Job ${job.metadata.name} (as a pod) completed in ${Date.now() - t} ms: ${logs.stdout.trim().split('\n').pop() ?? ''}`);
    }

    const file = join(work, 'workloads.yaml');
    // podman 4.3 hands out the --ip addresses one per document, volumes included: the pods come first.
    writeFileSync(file, yaml([...plan.workloads, ...plan.volumes]));
    const t0 = Date.now();
    // One address per replica, in document order (podman hands them out so).
    const replicaPods = plan.workloads.flatMap((w, i) =>
      Array.from({ length: replicasOf(w) }, (_, k) => ({
        w,
        i,
        pod: w.kind === 'Pod' ? w.metadata.name : `${w.metadata.name}-pod-${k}`,
        ip: ipOf(i, k),
      })),
    );
    must(['kube', 'play', '--network', run, ...replicaPods.flatMap((r) => ['--ip', r.ip]), file]);
    pods.push(...replicaPods.map((r) => r.pod));
    say(`kube play started ${replicaPods.length} pods in ${Date.now() - t0} ms`);
    // Each Service name was bound to the address planned for its pod: check podman gave exactly those.
    for (const { pod, ip: planned } of replicaPods) {
      const infra = must(['pod', 'inspect', pod, '--format', '{{.InfraContainerID}}']);
      const ip = must(['inspect', infra, '--format', '{{range .NetworkSettings.Networks}}{{.IPAddress}}{{end}}']);
      if (ip !== planned) throw new Error(`pod ${pod} got address ${ip}, not the planned ${planned}`);
    }

    const pending = replicaPods.flatMap(({ w, i, pod, ip }) =>
      (plan.probes[i] ?? []).map((p) => ({
        workload: `${w.kind}/${w.metadata.name} pod ${pod}`,
        ip,
        container: `${pod}-${p.container}`,
        p,
      })),
    );
    const readyAt = new Map<string, number>();
    const until = Date.now() + 180_000;
    while (readyAt.size < pending.length && Date.now() < until) {
      for (const x of pending) {
        if (readyAt.has(x.container)) continue;
        if (await ready(x.p, x.ip, x.container)) readyAt.set(x.container, Date.now() - t0);
      }
      if (readyAt.size < pending.length) await sleep(1_000);
    }
    for (const x of pending) {
      const at = readyAt.get(x.container);
      const how = x.p.probe?.httpGet ? `GET :${x.p.port}${x.p.probe.httpGet.path ?? '/'}` : x.p.probe?.exec ? 'exec' : 'running';
      if (at === undefined) {
        ok = false;
        const logs = podman(['logs', '--tail', '30', x.container]);
        say(`NOT READY ${x.workload} (${x.container}, readiness ${how}) after 180 s:\n${logs.stdout}${logs.stderr}`);
      } else say(`ready: ${x.workload} (readiness ${how}) ${(at / 1000).toFixed(1)} s after kube play`);
    }
    if (ok) {
      // The bot dials the Service name `gateway`, which resolves to the first gateway pod.
      const gatewayIp = ipOf(plan.workloads.findIndex((w) => w.metadata.name === 'gateway'));
      const metrics = await (await fetch(`http://${gatewayIp}:9464/metrics`)).text();
      if (!/^botlink_connected_bots(\{[^}]*\})? 1$/m.test(metrics)) {
        ok = false;
        say('the bot did not link through the gateway Service name (botlink_connected_bots is not 1)');
      } else say('bot linked to the gateway over mutual TLS through the Service name (botlink_connected_bots 1)');
      // The deploy defaults as podman applied them (docs/security.md, "Deploy defaults"): every
      // container's root is read-only and the services' code cannot be written, NATS took the
      // gateways and backends over TLS, and its monitoring endpoint answers nobody on the pod network.
      const defaults = await deployDefaults(replicaPods, ipOf(plan.workloads.findIndex((w) => w.metadata.name === 'nats')));
      for (const line of defaults.problems) say(`DEPLOY DEFAULT BROKEN: ${line}`);
      if (defaults.problems.length > 0) ok = false;
      else say(`deploy defaults hold: ${defaults.checked.join('; ')}`);
      const stats = podman(['stats', '--no-stream', '--no-reset', '--format', '{{.Name}} {{.MemUsage}}']).stdout.trim().split('\n');
      for (const line of stats.filter((l) => replicaPods.some((r) => l.startsWith(r.pod)))) say(`memory: ${line}`);
      // SIGTERM as a rollout sends it: one pod of each of our services at a time while the rest of
      // the stack runs. Judged: an operator's rolling deploy needs each service to stop inside its
      // own budget (libs/lifecycle: 10 s, then exit 1), so any exit but 0 fails the check, with the
      // pod's whole log from the SIGTERM on. podman 4.3's `pod stop` takes the pod's network away
      // within a fraction of a second of the SIGTERM (Kubernetes keeps it until the containers
      // exited): a GOAWAY or FIN not answered by then never is, as with a peer that vanished,
      // and the stop must still end inside its budget.
      for (const name of ['backend', 'gateway', 'bot']) {
        const r = replicaPods.find((x) => x.w.metadata.name === name);
        if (!r) continue;
        const container = `${r.pod}-${name}`;
        const t = Date.now();
        const since = new Date(t - 1_000).toISOString();
        must(['pod', 'stop', '-t', '20', r.pod]);
        const code = must(['container', 'inspect', container, '--format', '{{.State.ExitCode}}']);
        const logs = podman(['logs', '--since', since, container]);
        const stopLog = `${logs.stdout}${logs.stderr}`;
        // The stop's one info line (libs/lifecycle stopSteps): total ms and every step's.
        const summary = stopLog
          .split('\n')
          .flatMap((line) => {
            try {
              const entry = JSON.parse(line) as { msg?: unknown; ms?: unknown; steps?: unknown };
              return entry.steps === undefined
                ? []
                : [`${String(entry.msg)} in ${String(entry.ms)} ms, steps ${JSON.stringify(entry.steps)}`];
            } catch {
              return [];
            }
          })
          .join('; ');
        say(`SIGTERM to ${r.pod} (others running): exit ${code} after ${Date.now() - t} ms${summary ? `: ${summary}` : ''}`);
        if (code !== '0') {
          ok = false;
          say(`NOT A CLEAN STOP ${r.pod}, its log from the SIGTERM on:\n${stopLog}`);
        }
      }
    }
  } catch (err: unknown) {
    ok = false;
    say(`FAILED: ${err instanceof Error ? err.message : String(err)}`);
  } finally {
    const t = Date.now();
    const newPods = () => [...listed('pod')].filter((p) => !podsBefore.has(p) || pods.includes(p));
    const newVolumes = () => [...listed('volume')].filter((v) => !volumesBefore.has(v));
    const madePods = newPods();
    if (madePods.length > 0) podman(['pod', 'rm', '-f', '-t', '5', ...madePods.reverse()]);
    for (const s of secrets) podman(['secret', 'rm', s]);
    for (const v of newVolumes()) podman(['volume', 'rm', '-f', v]);
    podman(['network', 'rm', '-f', run]);
    forwarder?.close();
    spawnSync('psql', ['-h', '127.0.0.1', '-U', 'postgres', '-d', 'postgres', '-qc', `drop database if exists ${database} with (force)`]);
    rmSync(work, { recursive: true, force: true });
    const leftPods = newPods();
    const leftVolumes = newVolumes();
    if (leftPods.length > 0 || leftVolumes.length > 0) {
      ok = false;
      say(`NOT CLEANED UP: pods ${leftPods.join(', ') || 'none'}; volumes ${leftVolumes.join(', ') || 'none'}`);
    } else {
      say(
        `removed ${madePods.length} pods, ${secrets.length} secrets, the volumes, network and database in ${Date.now() - t} ms; none is left`,
      );
    }
  }
  say(ok ? 'passed' : 'failed');
  return ok;
}

const [command, arg] = process.argv.slice(2);
const passed = command === 'validate' ? await validate() : command === 'play' ? await play(arg ?? 'ci') : undefined;
if (passed === undefined) {
  console.error('usage: cli.ts validate | play <image-tag>');
  process.exit(2);
}
process.exit(passed ? 0 : 1);
