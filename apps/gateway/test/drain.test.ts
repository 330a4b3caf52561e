import { Agent, request } from 'node:http';
import { startEdge } from './support/edge.js';

/** One GET by a keep-alive client: status and the Connection header the edge answered with. */
function get(url: string): Promise<{ status: number; connection: string | undefined }> {
  const agent = new Agent({ keepAlive: true });
  return new Promise<{ status: number; connection: string | undefined }>((resolve, reject) => {
    const req = request(url, { agent }, (res) => {
      res.resume();
      res.on('end', () => resolve({ status: res.statusCode ?? 0, connection: res.headers.connection }));
    });
    req.on('error', reject);
    req.end();
  }).finally(() => agent.destroy());
}

describe('gateway drain (SIGTERM with GATEWAY_DRAIN_DELAY_MS)', () => {
  it('answers /readyz 503 and closes every answer connection while draining, and neither before', async () => {
    let draining = false;
    // No backend listens on port 9: /readyz depends on the backend only while not draining.
    const edge = await startEdge('http://127.0.0.1:9', { draining: () => draining });
    try {
      const live = await get(`${edge.url}/livez`);
      expect(live).toEqual({ status: 200, connection: 'keep-alive' });
      draining = true;
      expect(await get(`${edge.url}/readyz`)).toEqual({ status: 503, connection: 'close' });
      expect(await get(`${edge.url}/livez`)).toEqual({ status: 200, connection: 'close' });
    } finally {
      await edge.close();
    }
  });
});
