/**
 * The gateway's metrics: its own registry and the metric families of the bot-link, the command
 * cluster, the internal listener and every listener's refused connections, created once and passed to their users.
 */
export {
  CHAT_INPUTS,
  CHAT_OUTCOMES,
  createBotlinkMetrics,
  type BotlinkMetrics,
  type ChatInputLabel,
  type ChatOutcomeLabel,
  type CommandOutcomeLabel,
  type LinkEndReason,
  type SupportCallOutcome,
  type SupportRpc,
} from './botlink-metrics.js';
export { createClusterMetrics, type ClusterMetrics, type ClusterRejection } from './cluster-metrics.js';
export { createInternalMetrics } from './internal-metrics.js';
export { createGatewayListenerMetrics, GATEWAY_LISTENERS } from './listener-metrics.js';
export { createRegistry } from './registry.js';
