import net from 'node:net';

/** One HTTP/1.1 response as the load generator needs it. */
export interface RawResponse {
  status: number;
  body: Buffer;
}

const HEADER_END = Buffer.from('\r\n\r\n');
const CONTENT_LENGTH = /\r\ncontent-length:\s*(\d+)/i;

/**
 * A keep-alive HTTP/1.1 connection that sends pre-serialised requests one at a time and parses
 * only what a bench needs (status line, Content-Length, body). It is far cheaper per request than
 * node:http's client, so the load generator takes less of the CPU the measured servers share.
 */
export class RawHttpConnection {
  private readonly socket: net.Socket;
  private buffer: Buffer = Buffer.alloc(0);
  private pending: { resolve: (r: RawResponse) => void; reject: (e: Error) => void } | undefined;

  private constructor(socket: net.Socket) {
    this.socket = socket;
    socket.setNoDelay(true);
    socket.on('data', (chunk: Buffer) => this.onData(chunk));
    socket.on('error', (err) => this.fail(err));
    socket.on('close', () => this.fail(new Error('connection closed by the server')));
  }

  /** Opens a connection to host:port. */
  static open(host: string, port: number): Promise<RawHttpConnection> {
    return new Promise((resolve, reject) => {
      const socket = net.connect(port, host, () => resolve(new RawHttpConnection(socket)));
      socket.once('error', reject);
    });
  }

  /** Sends one complete request and resolves with its response. */
  send(request: Buffer | string): Promise<RawResponse> {
    if (this.pending) throw new Error('one request at a time per connection');
    return new Promise((resolve, reject) => {
      this.pending = { resolve, reject };
      this.socket.write(request);
    });
  }

  close(): void {
    this.socket.destroy();
  }

  private onData(chunk: Buffer): void {
    this.buffer = this.buffer.length === 0 ? chunk : Buffer.concat([this.buffer, chunk]);
    const end = this.buffer.indexOf(HEADER_END);
    if (end < 0) return;
    const head = this.buffer.toString('latin1', 0, end);
    const length = CONTENT_LENGTH.exec(head);
    if (!length?.[1]) {
      this.fail(new Error(`response without Content-Length: ${head.split('\r\n')[0] ?? ''}`));
      return;
    }
    const total = end + HEADER_END.length + Number(length[1]);
    if (this.buffer.length < total) return;
    const status = Number(head.slice(9, 12));
    const body = this.buffer.subarray(end + HEADER_END.length, total);
    this.buffer = this.buffer.subarray(total);
    const waiter = this.pending;
    this.pending = undefined;
    waiter?.resolve({ status, body });
  }

  private fail(err: Error): void {
    const waiter = this.pending;
    this.pending = undefined;
    waiter?.reject(err);
  }
}

/** Serialises an HTTP/1.1 request (Content-Length set from the body). */
export function httpRequest(method: string, host: string, pathname: string, headers: Record<string, string>, body = ''): string {
  const lines = [`${method} ${pathname} HTTP/1.1`, `host: ${host}`];
  for (const [name, value] of Object.entries(headers)) lines.push(`${name}: ${value}`);
  if (body !== '' || method !== 'GET') lines.push(`content-length: ${Buffer.byteLength(body)}`);
  return `${lines.join('\r\n')}\r\n\r\n${body}`;
}
