/**
 * The load generator process: reads a LoadSpec (JSON) from BENCH_LOAD_SPEC, drives it over raw
 * keep-alive HTTP/1.1 connections and prints LoadFigures (JSON) on stdout. It runs in its own
 * process so its CPU is visible and its garbage collection never pauses a measured server.
 */
import { performance } from 'node:perf_hooks';
import { percentile } from '../stats.js';
import { httpRequest, RawHttpConnection } from './raw-http.js';
import type { LoadFigures, LoadSpec, RequestTemplate } from './spec.js';

const spec = JSON.parse(process.env['BENCH_LOAD_SPEC'] ?? '') as LoadSpec;
const ports = spec.ports && spec.ports.length > 0 ? spec.ports : [spec.port];
const portOf = (connection: number) => ports[connection % ports.length] ?? spec.port;

function build(t: RequestTemplate, connection: number, n: number): string {
  const headers = t.uniqueHeader ? { ...t.headers, [t.uniqueHeader]: `${spec.uniquePrefix}-${connection}-${n}` } : t.headers;
  return httpRequest(t.method, `${spec.host}:${portOf(connection)}`, t.path, headers, t.body);
}

/** The `error.code` of a JSON error body, else `-`. */
function errorCode(body: Buffer): string {
  try {
    const code = (JSON.parse(body.toString('utf8')) as { error?: { code?: unknown } }).error?.code;
    return typeof code === 'string' && /^[a-z_]{1,64}$/.test(code) ? code : '-';
  } catch {
    return '-';
  }
}

async function main(): Promise<void> {
  const connections = await Promise.all(spec.templates.map((_, i) => RawHttpConnection.open(spec.host, portOf(i))));
  // BENCH_LOAD_WAIT=1: connected, say so on stderr and start on the first line of stdin, so a
  // caller measuring the servers can start its clock here rather than before this process's start-up.
  if (process.env['BENCH_LOAD_WAIT'] === '1') {
    process.stderr.write('ready\n');
    await new Promise((resolve) => process.stdin.once('data', resolve));
    process.stdin.destroy(); // an open stdin would keep this process alive after its figures
  }
  const fixed = spec.templates.map((t, i) => (t.uniqueHeader ? null : Buffer.from(build(t, i, 0))));
  const latencies: number[] = [];
  const okLatencies: number[] = [];
  const failures: Record<string, number> = {};
  let errors = 0;
  let firstError: string | undefined;
  const cpu0 = process.cpuUsage();
  const t0 = performance.now();
  const end = t0 + spec.seconds * 1000;
  const interval = spec.mode === 'paced' ? (1000 * spec.templates.length) / (spec.rate ?? 1) : 0;

  await Promise.all(
    connections.map(async (conn, i) => {
      const template = spec.templates[i] as RequestTemplate;
      // Paced connections start staggered across one interval so the offered load is even.
      let scheduled = t0 + (interval * i) / connections.length;
      for (let n = 0; ; n += 1) {
        if (spec.mode === 'paced') {
          if (scheduled >= end) break;
          const wait = scheduled - performance.now();
          if (wait > 0) await new Promise((r) => setTimeout(r, wait));
        } else if (performance.now() >= end) break;
        const sent = spec.mode === 'paced' ? scheduled : performance.now();
        const res = await conn.send(fixed[i] ?? build(template, i, n));
        const took = performance.now() - sent;
        latencies.push(took);
        if (res.status !== spec.expectStatus) {
          errors += 1;
          firstError ??= `${res.status} ${res.body.toString('utf8', 0, 200)}`;
          const kind = `${res.status} ${errorCode(res.body)}`;
          failures[kind] = (failures[kind] ?? 0) + 1;
        } else okLatencies.push(took);
        scheduled += interval;
      }
    }),
  );
  const seconds = (performance.now() - t0) / 1000;
  const cpu = process.cpuUsage(cpu0);
  for (const c of connections) c.close();
  latencies.sort((a, b) => a - b);
  okLatencies.sort((a, b) => a - b);
  const figures: LoadFigures = {
    requests: latencies.length,
    errors,
    ...(firstError === undefined ? {} : { firstError }),
    failures,
    p99Ok: percentile(okLatencies, 99) ?? Number.NaN,
    seconds,
    perSecond: latencies.length / seconds,
    p50: percentile(latencies, 50) ?? Number.NaN,
    p99: percentile(latencies, 99) ?? Number.NaN,
    cpuMs: (cpu.user + cpu.system) / 1000,
  };
  process.stdout.write(JSON.stringify(figures));
}

await main();
