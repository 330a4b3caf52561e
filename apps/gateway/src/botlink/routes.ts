import type { Logger } from '@wordgame/logging';
import type { BackendClients } from '../backend/index.js';
import { createRelayHandlers } from './relay.js';
import { createLinkHandler, type LinkHandlerDeps } from './link-handler.js';

/** The botlink.v1.BotLink implementation: the Link stream and the three unary RPCs proxied to the backend. */
export function botlinkService(deps: LinkHandlerDeps & { backend: BackendClients; logger: Logger }) {
  return { link: createLinkHandler(deps), ...createRelayHandlers(deps.backend, deps.logger) };
}
