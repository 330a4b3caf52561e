import { Counter, type Registry } from 'prom-client';
import { SEAL_REJECTIONS } from '@wordgame/service-kit';

/**
 * `gateway_nats_rejected_total{reason}`: why a relayed command or reply was dropped: a seal
 * rejection (malformed, oversize, version, bad_mac, stale, future, replay), or `undecodable` (a
 * verified body that is not a SendRequest/SendResponse).
 */
export const CLUSTER_REJECTIONS = [...SEAL_REJECTIONS, 'undecodable'] as const;
export type ClusterRejection = (typeof CLUSTER_REJECTIONS)[number];

/** Metrics of the command relay between gateways over NATS. */
export interface ClusterMetrics {
  rejected: Counter<'reason'>;
}

/** Registers the relay's metrics, each reason pre-created at zero. */
export function createClusterMetrics(registry: Registry): ClusterMetrics {
  const rejected = new Counter({
    name: 'gateway_nats_rejected_total',
    help: 'Bot commands and their replies relayed over NATS that were dropped for a missing, wrong, stale or replayed seal (never written to the bot).',
    labelNames: ['reason'],
    registers: [registry],
  });
  for (const reason of CLUSTER_REJECTIONS) rejected.inc({ reason }, 0);
  return { rejected };
}
