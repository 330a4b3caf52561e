import { Socket } from 'node:net';
import { Code, ConnectError, createClient } from '@connectrpc/connect';
import { createConnectTransport } from '@connectrpc/connect-node';
import { CONNECT_TIMEOUT_CODE, createConnectUnaryTransport, neverReached } from '../src/index.js';
import { service } from './support/echo.js';

/** A TCP connection whose SYN is never answered (a replica gone with its address): it stays connecting. */
function neverConnects(): Socket {
  const socket = new Socket();
  (socket as Socket & { connecting: boolean }).connecting = true;
  return socket;
}

describe('fast client connect timeout', () => {
  it('fails a call on an address that never answers within the connect timeout, as never reached (another replica may take it)', async () => {
    const transport = createConnectUnaryTransport({
      baseUrl: 'http://10.0.0.1:4000',
      token: 't',
      defaultTimeoutMs: 5_000,
      streams: createConnectTransport({ baseUrl: 'http://10.0.0.1:4000', httpVersion: '2' }),
      connectTimeoutMs: 200,
      createConnection: neverConnects,
    });
    let failure: unknown;
    try {
      await createClient(service, transport).check({ body: new TextEncoder().encode('ok') }, { timeoutMs: 5_000 });
    } catch (err: unknown) {
      failure = err;
    } finally {
      transport.close();
    }
    expect(failure).toBeInstanceOf(ConnectError);
    expect((failure as ConnectError).code).toBe(Code.Unavailable);
    expect(neverReached(failure)).toBe(true);
    expect(JSON.stringify((failure as ConnectError).cause, Object.getOwnPropertyNames((failure as ConnectError).cause))).toContain(
      CONNECT_TIMEOUT_CODE,
    );
  });
});
