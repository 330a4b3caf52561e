/**
 * The bot-link: the mTLS gRPC listener the bots connect to, the botlink.v1.BotLink service (the
 * Link stream and the unary RPCs proxied to the backend intake), the bot identity gate and the
 * platform health the bots report.
 */
export { BotIdentityGate } from './client-identity.js';
export { botlinkServers } from './grpc-unary.js';
export { PlatformHealth } from './health.js';
export { botlinkService } from './routes.js';
export { BOTLINK_CLOSE_GRACE_MS, listenMtls, type MtlsServer } from './tls-server.js';
