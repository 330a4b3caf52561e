import http2 from 'node:http2';
import net from 'node:net';
import { listenDual, type DualListener } from '../src/server/listener.js';

/** Connects, writes `first` (if any), and resolves with what came back and how long until the close. */
function probe(port: number, first?: string): Promise<{ answer: string; closedAfterMs: number }> {
  return new Promise((resolve, reject) => {
    const started = Date.now();
    let answer = '';
    const socket = net.connect(port, '127.0.0.1', () => {
      if (first !== undefined) socket.write(first);
    });
    socket.setEncoding('utf8');
    socket.on('data', (chunk: string) => (answer += chunk));
    socket.on('error', reject);
    socket.on('close', () => resolve({ answer, closedAfterMs: Date.now() - started }));
  });
}

describe('backend listener timeouts (hostile clients on the private port)', () => {
  let listener: DualListener;
  beforeAll(async () => {
    // Answers once the whole body is in, as the Connect handlers do.
    listener = await listenDual((req, res) => req.resume().on('end', () => res.end('ok')), '127.0.0.1', 0, 1_000, undefined, {
      firstBytesMs: 400,
      headersMs: 400,
      requestMs: 800,
    });
  });
  afterAll(async () => listener.close());

  it('answers 408 and closes an HTTP/1.1 request whose headers never end', async () => {
    const { answer, closedAfterMs } = await probe(listener.port, 'GET /health HTTP/1.1\r\nHost: x\r\n');
    expect(answer).toMatch(/^HTTP\/1\.1 408 /);
    expect(closedAfterMs).toBeLessThan(3_000);
  });

  it('closes a connection that says nothing', async () => {
    const { answer, closedAfterMs } = await probe(listener.port);
    expect(answer).toBe('');
    expect(closedAfterMs).toBeGreaterThanOrEqual(350);
    expect(closedAfterMs).toBeLessThan(3_000);
  });

  it('closes an HTTP/1.1 request whose body never ends', async () => {
    const { answer, closedAfterMs } = await probe(listener.port, 'POST /x HTTP/1.1\r\nHost: x\r\nContent-Length: 10\r\n\r\nab');
    expect(answer).toMatch(/^HTTP\/1\.1 408 /);
    expect(closedAfterMs).toBeLessThan(3_000);
  });

  it('still serves HTTP/1.1 at once and keeps an idle HTTP/2 session past every timeout', async () => {
    const plain = await probe(listener.port, 'GET /health HTTP/1.1\r\nHost: x\r\nConnection: close\r\n\r\n');
    expect(plain.answer).toMatch(/^HTTP\/1\.1 200 /);
    const session = http2.connect(`http://127.0.0.1:${listener.port}`);
    const get = () =>
      new Promise<string>((resolve, reject) => {
        const stream = session.request({ ':path': '/health' });
        let body = '';
        stream.setEncoding('utf8');
        stream.on('data', (chunk: string) => (body += chunk));
        stream.on('end', () => resolve(body));
        stream.on('error', reject);
      });
    try {
      expect(await get()).toBe('ok');
      await new Promise((resolve) => setTimeout(resolve, 1_200));
      expect(session.closed || session.destroyed).toBe(false);
      expect(await get()).toBe('ok');
    } finally {
      session.close();
    }
  });
});
