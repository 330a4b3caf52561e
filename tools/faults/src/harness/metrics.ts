import { call } from './api.js';

/** One scrape of a Prometheus text endpoint: series (`name{labels}` as written) to value. */
export type Samples = Map<string, number>;

/** GETs `url` (the gateway's /metrics) and parses every sample line. */
export async function scrape(url: string): Promise<Samples> {
  const res = await call(url, { timeoutMs: 5_000 });
  if (res.status !== 200 || typeof res.body !== 'string') throw new Error(`${url}: ${res.status}`);
  const samples: Samples = new Map();
  for (const line of res.body.split('\n')) {
    if (line === '' || line.startsWith('#')) continue;
    const space = line.lastIndexOf(' ');
    samples.set(line.slice(0, space), Number(line.slice(space + 1)));
  }
  return samples;
}

/** The value of `name` with exactly these labels (0 when the series is absent, as for a counter never incremented). */
export function sample(samples: Samples, name: string, labels: Record<string, string> = {}): number {
  const wanted = Object.entries(labels)
    .map(([k, v]) => `${k}="${v}"`)
    .join(',');
  return samples.get(wanted === '' ? name : `${name}{${wanted}}`) ?? 0;
}
