import { createLogger } from '@wordgame/logging';
import { Kysely, PostgresDialect } from 'kysely';
import pg from 'pg';
import { Registry } from 'prom-client';
import type { DB } from '../../../apps/backend/src/db/schema.js';
import { createCatalogMetrics } from '../../../apps/backend/src/catalog/metrics.js';
import { createGameEventRejections } from '../../../apps/backend/src/game/nats-bus.js';
import { registerSupportMetrics } from '../../../apps/backend/src/helpdesk/metrics.js';
import { createMakeGoodOutcomes } from '../../../apps/backend/src/makegoods/metrics.js';
import { createBackendMetrics, registerStateCollector } from '../../../apps/backend/src/metrics/index.js';
import { createBackendRegistry } from '../../../apps/backend/src/metrics/registry.js';
import { registerForgetGauges } from '../../../apps/backend/src/privacy/metrics.js';
import { createPromoMetrics } from '../../../apps/backend/src/promos/metrics.js';
import { reconciliationMetrics } from '../../../apps/backend/src/reconciliation/metrics.js';
import { createApiMetrics, createDoorMetrics } from '../../../apps/gateway/src/http/metrics.js';
import { createBotlinkMetrics } from '../../../apps/gateway/src/metrics/botlink-metrics.js';
import { createClusterMetrics } from '../../../apps/gateway/src/metrics/cluster-metrics.js';
import { createInternalMetrics } from '../../../apps/gateway/src/metrics/internal-metrics.js';
import { createGatewayListenerMetrics } from '../../../apps/gateway/src/metrics/listener-metrics.js';
import { createRegistry } from '../../../apps/gateway/src/metrics/registry.js';
import { code, header, table } from './markdown.js';

/** One metric family as the reference lists it. */
export interface MetricReference {
  readonly name: string;
  readonly type: string;
  readonly labels: readonly string[];
  readonly help: string;
}

/** A service's metrics: its own families and the prefix of prom-client's default process metrics. */
export interface ServiceMetrics {
  readonly service: string;
  readonly port: string;
  readonly families: readonly MetricReference[];
  readonly defaultPrefix: string;
}

function familiesOf(registry: Registry): MetricReference[] {
  return registry.getMetricsAsArray().map((metric) => {
    const labels = (metric as { labelNames?: unknown }).labelNames;
    return {
      name: metric.name,
      type: String(metric.type),
      labels: Array.isArray(labels) ? labels.map(String) : [],
      help: metric.help,
    };
  });
}

/** The prefix the service's registry gives prom-client's default metrics (`backend_`). */
function defaultPrefixOf(registry: Registry): string {
  const cpu = registry.getMetricsAsArray().find((m) => m.name.endsWith('process_cpu_seconds_total'));
  if (cpu === undefined) throw new Error('the registry has no default process metrics');
  return cpu.name.slice(0, -'process_cpu_seconds_total'.length);
}

/**
 * Every family the backend registers (the event series, the scrape-time state and pool series,
 * reconciliation, NATS rejections, the bot forget queue), read from a registry the backend's own factories fill. The
 * database handles are real but never connect: collection only happens on a scrape.
 */
async function backendMetrics(): Promise<ServiceMetrics> {
  const registry = new Registry();
  const pool = new pg.Pool({ max: 1 });
  try {
    const db = new Kysely<DB>({ dialect: new PostgresDialect({ pool }) });
    const logger = createLogger('docs', 'silent');
    createBackendMetrics(registry);
    createGameEventRejections(registry);
    createMakeGoodOutcomes(registry);
    registerStateCollector(registry, { db, pool, ready: () => Promise.resolve(true), logger });
    reconciliationMetrics(registry, db, logger);
    registerForgetGauges(registry, db, () => new Date(), logger);
    registerSupportMetrics(registry, db, () => new Date(0), 86_400, logger);
    createPromoMetrics(registry);
    createCatalogMetrics(registry);
    return {
      service: 'Backend',
      port: 'BACKEND_METRICS_PORT',
      families: familiesOf(registry),
      defaultPrefix: defaultPrefixOf(createBackendRegistry()),
    };
  } finally {
    await pool.end();
  }
}

/** Every family the gateway registers: the bot-link (with the bot's Health), the internal listener, the NATS relay, REST, the listeners' refused connections. */
function gatewayMetrics(): ServiceMetrics {
  const registry = new Registry();
  createBotlinkMetrics(registry);
  createInternalMetrics(registry);
  createClusterMetrics(registry);
  createApiMetrics(registry);
  createDoorMetrics(registry, 1, () => 0);
  createGatewayListenerMetrics(registry);
  return {
    service: 'Gateway',
    port: 'GATEWAY_METRICS_PORT',
    families: familiesOf(registry),
    defaultPrefix: defaultPrefixOf(createRegistry()),
  };
}

/** The metrics of every service that exports any (the bot exports none: the gateway reports its Health). */
export async function serviceMetrics(): Promise<ServiceMetrics[]> {
  return [await backendMetrics(), gatewayMetrics()];
}

/** docs/reference/metrics.md: one table per service. */
export async function renderMetrics(): Promise<string> {
  const sections = (await serviceMetrics()).map(({ service, port, families, defaultPrefix }) =>
    [
      `## ${service}`,
      '',
      `Served at \`/metrics\` on \`${port}\` (a private listener, apart from the traffic ports). Besides the families below,`,
      `prom-client's default process and Node.js metrics, prefixed \`${defaultPrefix}\` (e.g. \`${defaultPrefix}process_cpu_seconds_total\`).`,
      '',
      table(
        ['metric', 'type', 'labels', 'help'],
        families.map((f) => [code(f.name), f.type, f.labels.map(code).join(', '), f.help]),
      ),
      '',
    ].join('\n'),
  );
  return [
    header('Metrics reference', "the services' metrics registries (prom-client)"),
    'Label values are closed sets (never an id). The bot exports no metrics of its own: it reports its',
    'Health over the bot-link and the gateway exports it as the `bot_*` families.',
    '',
    ...sections,
  ].join('\n');
}
