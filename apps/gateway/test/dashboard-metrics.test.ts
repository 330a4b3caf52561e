import { readdirSync, readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { parse } from 'yaml';
import { freePort } from '@wordgame/testkit';
import { eventually } from './support/botlink-gateway.js';
import { call } from './support/edge.js';
import {
  bearer,
  createProduct,
  directCustomer,
  startPaymentsStack,
  telegramCustomer,
  type OrderBody,
  type PaymentsStack,
} from './support/payments-stack.js';

const ops = (path: string) => fileURLToPath(new URL(`../../../ops/${path}`, import.meta.url));

/** PromQL words that are not metric names. */
const KEYWORDS = new Set([
  'by',
  'without',
  'on',
  'ignoring',
  'group_left',
  'group_right',
  'bool',
  'and',
  'or',
  'unless',
  'offset',
  'inf',
  'nan',
]);
/**
 * Series no service exports: `up` is written by Prometheus for every scrape. Metrics of the
 * reconciliation job (reconciliation_*) are kept in the expectation: they must be exported by the
 * backend once that job is part of it.
 */
const FROM_PROMETHEUS = new Set(['up']);

/** Every expression of every panel of every dashboard in ops/grafana/dashboards. */
function panelExpressions(): string[] {
  const out: string[] = [];
  const walk = (panels: unknown): void => {
    for (const p of (panels as Array<{ targets?: Array<{ expr?: string }>; panels?: unknown }> | undefined) ?? []) {
      for (const t of p.targets ?? []) if (t.expr) out.push(t.expr);
      walk(p.panels);
    }
  };
  for (const file of readdirSync(ops('grafana/dashboards')).filter((f) => f.endsWith('.json'))) {
    walk((JSON.parse(readFileSync(ops(`grafana/dashboards/${file}`), 'utf8')) as { panels: unknown }).panels);
  }
  return out;
}

/** Every alert expression in ops/prometheus/alerts.yml. */
function alertExpressions(): string[] {
  const rules = parse(readFileSync(ops('prometheus/alerts.yml'), 'utf8')) as { groups: Array<{ rules: Array<{ expr: string }> }> };
  return rules.groups.flatMap((g) => g.rules.map((r) => r.expr));
}

/** A selector's metric name with the label names and `=` values it selects. */
interface Selected {
  metric: string;
  labels: Array<{ name: string; value?: string }>;
}

/** The metric selectors of one PromQL expression (names followed by an optional `{...}`), functions and keywords left out. */
function selectors(expr: string): Selected[] {
  const text = expr.replace(/\b(by|without|on|ignoring)\s*\([^)]*\)/g, ' ').replace(/\[[^\]]*\]/g, ' ');
  const out: Selected[] = [];
  for (const m of text.matchAll(/([a-zA-Z_:][a-zA-Z0-9_:]*)\s*(\{[^}]*\})?(\s*\()?/g)) {
    const [, name = '', braces, call] = m;
    const before = text[(m.index ?? 0) - 1] ?? '';
    if (call || KEYWORDS.has(name) || /[0-9.$"']/.test(before) || /^[0-9]/.test(name)) continue;
    if (/^[a-z]+$/.test(name) && !braces && !name.includes('_') && !FROM_PROMETHEUS.has(name)) continue;
    const labels = [...(braces ?? '').matchAll(/(\w+)\s*(=~|!=|!~|=)\s*"([^"]*)"/g)].map(([, label = '', op, value]) =>
      op === '=' ? { name: label, value } : { name: label },
    );
    out.push({ metric: name, labels });
  }
  return out;
}

/** The sample lines of `metric` in an exposition (a histogram's _bucket/_sum/_count by their own names). */
const samplesOf = (text: string, metric: string) =>
  text.split('\n').filter((l) => l.startsWith(`${metric}{`) || l.startsWith(`${metric} `));

/**
 * Every metric a dashboard panel or an alert uses is exported by a running service: the backend
 * (own process) and the gateway with the real bot connected, scraped after a card purchase, a
 * pending card order and bot traffic. A selected label must be on the metric's samples, and a
 * `label="value"` selection must have a sample with that value.
 */
describe('dashboard and alert metrics are exported', () => {
  let stack: PaymentsStack;
  let backendMetricsUrl: string;

  beforeAll(async () => {
    const port = await freePort();
    backendMetricsUrl = `http://127.0.0.1:${port}/metrics`;
    stack = await startPaymentsStack({ bot: true, reaperIntervalMs: 200, backendEnv: { BACKEND_METRICS_PORT: String(port) } });
  }, 180_000);
  afterAll(async () => {
    await stack?.stop();
  });

  it('finds each panel and alert metric on the backend or the gateway after real calls', async () => {
    const pack = await createProduct(stack, 'Chips 250', 250n, { rub: 19900n, xtr: 50n });
    const buyer = await directCustomer(stack, 'dashboard@example.test', true);
    const order = async () => {
      const res = await call(`${stack.api}/user/wallet/orders`, {
        method: 'POST',
        headers: bearer(buyer),
        json: { product_id: pack, rail: 'card' },
      });
      expect(res.status).toBe(201);
      return res.body as OrderBody;
    };
    const paid = await order();
    const checkout = await fetch(paid.confirmation_url ?? '', {
      method: 'POST',
      headers: { 'content-type': 'application/x-www-form-urlencoded' },
      body: new URLSearchParams({
        orderId: new URL(paid.confirmation_url ?? 'http://x/').searchParams.get('orderId') ?? '',
        action: 'pay',
      }).toString(),
      redirect: 'manual',
    });
    expect(checkout.status).toBeLessThan(400);
    await eventually(
      async () =>
        ((await call(`${stack.api}/user/wallet/orders/${paid.order_id}`, { headers: bearer(buyer) })).body as OrderBody).state === 'paid',
      20_000,
    );
    await order(); // stays pending: the open-orders gauge has a sample
    await stack.provider.control.flushNotifications();
    if (stack.bot === undefined || stack.platform === undefined) throw new Error('no bot');
    await eventually(async () => /^botlink_connected_bots 1$/m.test(await (await fetch(stack.urls.metricsUrl)).text()), 30_000);
    // A stars order: the backend sends create_invoice through the gateway's hub to the real bot.
    stack.platform.control.createUser({ id: 700_001, firstName: 'Payer', started: true });
    const payer = await telegramCustomer(stack.api, 700_001);
    const stars = await call(`${stack.api}/user/wallet/orders`, {
      method: 'POST',
      headers: bearer(payer),
      json: { product_id: pack, rail: 'stars' },
    });
    expect(stars.status).toBe(201);

    const backend = await (await fetch(backendMetricsUrl)).text();
    const gateway = await (await fetch(stack.urls.metricsUrl)).text();
    const exported = `${backend}\n${gateway}`;
    const missing: string[] = [];
    const wanted = [...panelExpressions(), ...alertExpressions()].flatMap(selectors);
    expect(wanted.length).toBeGreaterThan(40);
    for (const { metric, labels } of wanted) {
      if (FROM_PROMETHEUS.has(metric)) continue;
      const samples = samplesOf(exported, metric);
      if (samples.length === 0) {
        missing.push(metric);
        continue;
      }
      for (const { name, value } of labels) {
        if (name === 'job' || name === 'instance') continue;
        const hit = samples.some((s) => (value === undefined ? s.includes(`${name}="`) : s.includes(`${name}="${value}"`)));
        if (!hit) missing.push(`${metric}{${name}${value === undefined ? '' : `="${value}"`}}`);
      }
    }
    expect([...new Set(missing)].sort()).toEqual([]);
  }, 120_000);
});
