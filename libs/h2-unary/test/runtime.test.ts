import { once } from 'node:events';
import http2 from 'node:http2';
import type { AddressInfo } from 'node:net';
import { setTimeout as sleep } from 'node:timers/promises';

/**
 * The runtime's HTTP/2 must let a complete answer that arrived before anyone read it be read by
 * async iteration. connect-node's clients (the bot's bot-link RPCs, the gateway's streams) read
 * every answer that way; Node 24.20 and 24.21 report ERR_STREAM_PREMATURE_CLOSE instead
 * (nodejs/node#65677), which failed the bot's pre-checkouts fail-closed under load. .nvmrc pins a
 * release without it; this test fails on a runtime that has it.
 */
describe('the runtime', () => {
  it('reads an HTTP/2 answer that was complete and closed before the read began', async () => {
    const server = http2.createServer();
    server.on('stream', (stream) => {
      stream.resume();
      stream.on('end', () => {
        stream.respond({ ':status': 200 }, { waitForTrailers: true });
        stream.on('wantTrailers', () => stream.sendTrailers({ 'grpc-status': '0' }));
        stream.end('complete answer');
      });
    });
    server.listen(0, '127.0.0.1');
    await once(server, 'listening');
    const session = http2.connect(`http://127.0.0.1:${(server.address() as AddressInfo).port}`);
    try {
      await once(session, 'connect');
      const bodies: string[] = [];
      for (let i = 0; i < 5; i += 1) {
        const req = session.request({ ':method': 'POST', ':path': '/' });
        req.end('x');
        await once(req, 'response');
        await sleep(20); // the body, the trailers and the stream's close arrive before the read
        let body = '';
        for await (const chunk of req) body += String(chunk);
        bodies.push(body);
      }
      expect(bodies).toEqual(Array.from({ length: 5 }, () => 'complete answer'));
    } finally {
      session.close();
      await new Promise((resolve) => server.close(resolve));
    }
  });
});
