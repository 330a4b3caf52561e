import type { Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { connectNodeAdapter } from '@connectrpc/connect-node';
import type { Logger } from '@wordgame/logging';
import { createBackendClients } from './backend/client.js';
import type { GatewayConfig } from './config.js';
import { createHttpApp } from './http/app.js';
import { listenMtls, type MtlsServer } from './botlink/tls-server.js';
import { createRegistry } from './metrics/registry.js';

/** A built gateway: `start()` listens on the HTTP port and the bot-link port; `stop()` closes both. */
export interface GatewayApp {
  start(): Promise<{ httpUrl: string; botlinkUrl: string; httpPort: number; botlinkPort: number }>;
  stop(): Promise<void>;
}

/** Builds the gateway without side effects until `start()`. */
export function buildGateway(config: GatewayConfig, logger: Logger): GatewayApp {
  const registry = createRegistry();
  const backend = createBackendClients(config.BACKEND_URL);
  let http: Server | undefined;
  let botlink: MtlsServer | undefined;

  return {
    async start() {
      const app = createHttpApp({ logger, registry, backend });
      const httpServer = app.listen(config.GATEWAY_HTTP_PORT, config.GATEWAY_HOST);
      http = httpServer;
      await new Promise<void>((resolve, reject) => {
        httpServer.once('listening', resolve);
        httpServer.once('error', reject);
      });
      const botlinkHandler = connectNodeAdapter({ routes: () => undefined });
      botlink = await listenMtls(
        {
          host: config.BOTLINK_HOST,
          port: config.BOTLINK_PORT,
          caPath: config.BOTLINK_TLS_CA,
          certPath: config.BOTLINK_TLS_CERT,
          keyPath: config.BOTLINK_TLS_KEY,
          logger,
        },
        botlinkHandler,
      );
      const httpPort = (httpServer.address() as AddressInfo).port;
      const urls = {
        httpUrl: `http://${config.GATEWAY_HOST}:${httpPort}`,
        botlinkUrl: `https://${config.BOTLINK_HOST}:${botlink.port}`,
        httpPort,
        botlinkPort: botlink.port,
      };
      logger.info(urls, 'gateway listening');
      return urls;
    },
    async stop() {
      await botlink?.close();
      if (http) {
        const server = http;
        await new Promise<void>((resolve) => {
          server.close(() => resolve());
          server.closeIdleConnections();
        });
      }
      botlink = undefined;
      http = undefined;
    },
  };
}
