import { readFileSync } from 'node:fs';
import type { Client } from '@connectrpc/connect';
import { createClient } from '@connectrpc/connect';
import { createGrpcTransport } from '@connectrpc/connect-node';
import { botlink } from '@wordgame/contracts';
import type { DevCerts } from '@wordgame/testkit';

/** A BotLink client on its own HTTP/2 connection with the bot's client certificate. */
export function botClient(url: string, certs: DevCerts): Client<typeof botlink.BotLink> {
  return createClient(
    botlink.BotLink,
    createGrpcTransport({
      baseUrl: url,
      nodeOptions: { ca: readFileSync(certs.ca.cert), cert: readFileSync(certs.bot.cert), key: readFileSync(certs.bot.key) },
    }),
  );
}
