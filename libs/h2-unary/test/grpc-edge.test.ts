import { envelope, requestBytes, send, startConnectNode, startFast, type Running } from './support/echo.js';

/**
 * What unaryServers answers in front of connect-node where the gRPC spec says otherwise than
 * connect-node: an encoding it cannot read (compression.md) and a method it does not have
 * (statuscodes.md). The reference connect-node server shows what it answered before.
 */
describe('gRPC edge of unaryServers (real h2c)', () => {
  let fast: Running;
  let reference: Running;
  beforeAll(async () => {
    fast = await startFast();
    reference = await startConnectNode();
  });
  afterAll(async () => {
    await fast.close();
    await reference.close();
  });

  const grpc = { 'content-type': 'application/grpc', te: 'trailers' };

  it('an unknown grpc-encoding is UNIMPLEMENTED with grpc-accept-encoding naming what is read (connect-node drops the header)', async () => {
    const call = (url: string) =>
      send(url, '/backend.v1.SystemService/Check', { ...grpc, 'grpc-encoding': 'snappy' }, envelope(requestBytes('ok:x'), 1));
    expect(await call(fast.url)).toEqual({
      status: 200,
      headers: [
        ['content-type', 'application/grpc'],
        ['grpc-accept-encoding', 'gzip,br'],
        ['grpc-message', encodeURIComponent('grpc-encoding snappy is not supported; supported: gzip,br,identity')],
        ['grpc-status', '12'],
      ],
      trailers: [],
      body: '',
    });
    const before = await call(reference.url);
    expect([...before.headers, ...before.trailers].map(([k]) => k)).not.toContain('grpc-accept-encoding');
  });

  it('a gRPC call to a method the server does not have is UNIMPLEMENTED, not a bare 404', async () => {
    const call = (url: string) => send(url, '/backend.v1.SystemService/Nope', grpc, envelope(requestBytes('ok:x')));
    expect(await call(fast.url)).toMatchObject({
      status: 200,
      headers: [
        ['content-type', 'application/grpc'],
        ['grpc-message', encodeURIComponent('unknown method /backend.v1.SystemService/Nope')],
        ['grpc-status', '12'],
      ],
    });
    expect((await call(reference.url)).status).toBe(404);
  });

  it('a Connect call to an unknown method is still 404', async () => {
    const answer = await send(fast.url, '/backend.v1.SystemService/Nope', { 'content-type': 'application/proto' }, requestBytes('ok:x'));
    expect(answer.status).toBe(404);
  });
});
