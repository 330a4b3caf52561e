import { Code, type Transport } from '@connectrpc/connect';
import { createConnectTransport } from '@connectrpc/connect-node';
import { createConnectUnaryTransport, type ClosableTransport } from '../src/index.js';
import { startConnectNode, type Running } from './support/echo.js';
import { call } from './support/outcome.js';

/**
 * The client fast path's contract: the same connect-node server's answers, read by connect-node's
 * Connect transport and by the fast transport, end the same way: the message with the same
 * headers and trailers, or a ConnectError with the same code, message, metadata and details.
 */
describe('fast client conformance with connect-node', () => {
  let server: Running;
  let reference: Transport;
  let fast: ClosableTransport;

  beforeAll(async () => {
    server = await startConnectNode();
    reference = createConnectTransport({ baseUrl: server.url, httpVersion: '2', acceptCompression: [] });
    fast = createConnectUnaryTransport({ baseUrl: server.url, token: 't', defaultTimeoutMs: 5_000, streams: reference });
  });
  afterAll(async () => {
    fast.close();
    await server.close();
  });

  const commands = ['ok:hello', 'big', 'details', 'throw', ...Array.from({ length: 16 }, (_, i) => `err:${i + 1}`)];
  it.each(commands)('%s ends the same way', async (command) => {
    const expected = await call(reference, command);
    const actual = await call(fast, command);
    expect(actual).toEqual(expected);
  });

  it('a deadline expiring ends both as DeadlineExceeded', async () => {
    const expected = await call(reference, 'wait', 50);
    const actual = await call(fast, 'wait', 50);
    expect(actual).toEqual(expected);
    expect(actual).toMatchObject({ ok: false, code: Code.DeadlineExceeded });
  });

  it('a call the caller cancels ends both as Canceled', async () => {
    const cancelled = async (t: Transport) => {
      const abort = new AbortController();
      setTimeout(() => abort.abort(), 50);
      return call(t, 'wait', undefined, abort.signal);
    };
    const expected = await cancelled(reference);
    const actual = await cancelled(fast);
    expect(actual).toEqual(expected);
    expect(actual).toMatchObject({ ok: false, code: Code.Canceled });
  });
});
