import type { ConnectRouter } from '@connectrpc/connect';
import { botlink } from '@wordgame/contracts';
import type { Logger } from '@wordgame/logging';
import type { BackendClients } from '../backend/client.js';
import { createIntakeHandlers } from './intake.js';
import { createLinkHandler, type LinkHandlerDeps } from './link-handler.js';

/** Registers botlink.v1.BotLink: the Link stream and the three unary RPCs proxied to the backend. */
export function botlinkRoutes(deps: LinkHandlerDeps & { backend: BackendClients; logger: Logger }) {
  const intake = createIntakeHandlers(deps.backend, deps.logger);
  const link = createLinkHandler(deps);
  return (router: ConnectRouter): void => {
    router.service(botlink.BotLink, { link, ...intake });
  };
}
