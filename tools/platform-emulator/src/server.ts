import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import type { Logger } from '@wordgame/logging';
import { handleBotApi, type BotApiDeps } from './bot-api.js';
import type { PlatformControl } from './control.js';
import { handleControl } from './control-http.js';
import { sendJson } from './http.js';

/** A listening emulator HTTP server. */
export interface RunningServer {
  server: Server;
  port: number;
  /** Closes the listener and every connection, including pending long polls. */
  close(): Promise<void>;
}

/**
 * Starts the HTTP server: `/livez` and `/readyz` answer 200, `/_control/...` goes to the control API, everything else is treated
 * as the Bot API (`/bot<TOKEN>/<method>`). Unexpected failures answer 500 and are logged. `onHandled` runs after every
 * control or Bot API request (any of them may change the world).
 */
export async function listen(
  options: { port: number; host: string; onHandled?: () => void },
  deps: BotApiDeps & { control: PlatformControl },
  logger: Logger,
): Promise<RunningServer> {
  const route = async (req: IncomingMessage, res: ServerResponse): Promise<void> => {
    const url = new URL(req.url ?? '/', 'http://emulator');
    if (req.method === 'GET' && (url.pathname === '/livez' || url.pathname === '/readyz')) {
      // No dependencies: serving at all is both alive and ready (container health checks).
      return sendJson(res, 200, { status: 'ok' });
    }
    if (url.pathname === '/_control' || url.pathname.startsWith('/_control/')) {
      return handleControl(req, res, url, deps.control);
    }
    return handleBotApi(req, res, url, deps);
  };
  const server = createServer((req, res) => {
    route(req, res)
      .catch((err: unknown) => {
        logger.error({ err, url: req.url }, 'request failed');
        sendJson(res, 500, { ok: false, error_code: 500, description: 'Internal Server Error' });
      })
      .finally(() => options.onHandled?.());
  });
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(options.port, options.host, () => {
      server.off('error', reject);
      resolve();
    });
  });
  const { port } = server.address() as AddressInfo;
  return {
    server,
    port,
    close: () =>
      new Promise<void>((resolve, reject) => {
        server.close((err) => (err ? reject(err) : resolve()));
        server.closeAllConnections();
      }),
  };
}
