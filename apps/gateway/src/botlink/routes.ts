import type { Logger } from '@wordgame/logging';
import type { BackendClients } from '../backend/index.js';
import { createRelayHandlers } from './relay.js';
import { createSupportRelayHandlers } from './support-relay.js';
import { createLinkHandler, type LinkHandlerDeps } from './link-handler.js';

/** The botlink.v1.BotLink implementation: the Link stream and the unary RPCs proxied to the backend (the support ones in support-relay.ts). */
export function botlinkService(deps: LinkHandlerDeps & { backend: BackendClients; logger: Logger }) {
  return {
    link: createLinkHandler(deps),
    ...createRelayHandlers(deps.backend, deps.logger),
    ...createSupportRelayHandlers(deps.backend, deps.metrics, deps.logger),
  };
}
