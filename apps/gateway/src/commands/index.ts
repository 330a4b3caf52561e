/**
 * Bot commands from the backend to a connected bot: the hub of live Links, the router that finds
 * the gateway holding the bot's Link (across a cluster), and the internal BotCommandService
 * listener the backend calls.
 */
export { ClusterCommandRouter, commandSeals, replyPrefix } from './cluster.js';
export { CommandHub, HubClosedError, type Link, type LinkIdentity } from './hub.js';
export { listenInternal, type InternalServer } from './internal-server.js';
export { commandRoutes } from './internal-service.js';
export { type CommandRouter } from './router.js';
