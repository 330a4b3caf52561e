import { Counter, type Registry } from 'prom-client';
import { SEAL_REJECTIONS } from '@wordgame/service-kit';

/**
 * `gateway_nats_rejected_total{reason}`: why a relayed command, offer, grant or reply was dropped: a
 * seal rejection (malformed, oversize, version, bad_mac, stale, future, replay), `undecodable` (a
 * verified body that is not a SendRequest/SendResponse), or `second_offer` (a second gateway offered
 * to write one request: a copy of it was re-published, and only the first offer is granted).
 */
export const CLUSTER_REJECTIONS = [...SEAL_REJECTIONS, 'undecodable', 'second_offer'] as const;
export type ClusterRejection = (typeof CLUSTER_REJECTIONS)[number];

/** Metrics of the command relay between gateways over NATS. */
export interface ClusterMetrics {
  rejected: Counter<'reason'>;
  /** Offers to write a relayed command that were never granted in time (gateway_nats_offers_lapsed_total). */
  offersLapsed: Counter;
}

/** Registers the relay's metrics, each reason pre-created at zero. */
export function createClusterMetrics(registry: Registry): ClusterMetrics {
  const rejected = new Counter({
    name: 'gateway_nats_rejected_total',
    help: 'Bot commands, offers, grants and replies relayed over NATS that were dropped for a missing, wrong, stale or replayed seal, or a second offer for one request (never written to the bot).',
    labelNames: ['reason'],
    registers: [registry],
  });
  for (const reason of CLUSTER_REJECTIONS) rejected.inc({ reason }, 0);
  const offersLapsed = new Counter({
    name: 'gateway_nats_offers_lapsed_total',
    help: 'Relayed bot commands this gateway offered to write that the sending gateway never granted in time; dropped, never written (the sender went elsewhere after an unsealed answer, or gave up).',
    registers: [registry],
  });
  offersLapsed.inc(0);
  return { rejected, offersLapsed };
}
