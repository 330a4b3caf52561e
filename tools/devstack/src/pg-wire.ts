import { createServer, type Socket } from 'node:net';
import type { AddressInfo } from 'node:net';
import type { PGlite } from '@electric-sql/pglite';
import type { Logger } from '@wordgame/logging';

const SSL_REQUEST = 80877103;
const GSSENC_REQUEST = 80877104;
const CANCEL_REQUEST = 80877102;
const PROTOCOL_3 = 196608;

/** A PGlite database served over the PostgreSQL wire protocol on a TCP port. */
export interface WireServer {
  readonly host: string;
  readonly port: number;
  /** Connections open now (for tests and the stop log). */
  connections(): number;
  /** Stops listening, closes every connection (rolling back an open transaction) and resolves when done. */
  close(): Promise<void>;
}

export interface WireServerOptions {
  host: string;
  /** 0 = any free port. */
  port: number;
  /**
   * How long a connection may hold the database inside a transaction without sending anything;
   * past it the connection is closed and its transaction rolled back, so one stuck client cannot
   * stop every other (PostgreSQL's idle_in_transaction_session_timeout, which PGlite does not run).
   */
  idleInTransactionMs?: number;
  logger: Logger;
}

/** A FIFO lock: each holder runs alone until it releases. */
class TurnLock {
  private held = false;
  private readonly waiting: Array<() => void> = [];

  acquire(): Promise<void> {
    if (!this.held) {
      this.held = true;
      return Promise.resolve();
    }
    return new Promise((resolve) => this.waiting.push(resolve));
  }

  release(): void {
    const next = this.waiting.shift();
    if (next) next();
    else this.held = false;
  }
}

/** Reads a NUL-terminated string at `at`; answers it and the offset after the NUL. */
function cstring(buf: Buffer, at: number): [string, number] {
  const end = buf.indexOf(0, at);
  if (end < 0) throw new RangeError('unterminated string in a protocol message');
  return [buf.toString('utf8', at, end), end + 1];
}

function typed(type: string, body: Buffer): Buffer {
  const head = Buffer.alloc(5);
  head.write(type, 0, 'latin1');
  head.writeInt32BE(body.length + 4, 1);
  return Buffer.concat([head, body]);
}

function cstr(text: string): Buffer {
  return Buffer.concat([Buffer.from(text, 'utf8'), Buffer.from([0])]);
}

/** A simple Query message. */
function query(text: string): Buffer {
  return typed('Q', cstr(text));
}

/**
 * Serves one PGlite instance to many PostgreSQL clients (node-postgres, psql) over TCP, so the
 * dev stack's backend and the operator commands run beside it share one store as they would share
 * a PostgreSQL server. PGlite has a single session, so clients take turns at transaction
 * granularity: a client holds the database from its first message until PGlite answers
 * ReadyForQuery "idle" after a Sync or a simple Query, so another client's statements never land
 * inside its transaction or between its Parse and Bind. Prepared statement and portal names are
 * prefixed per connection (clients name statements alike), and a closing connection's open
 * transaction is rolled back and its statements deallocated.
 */
export async function serveOverWire(pglite: PGlite, options: WireServerOptions): Promise<WireServer> {
  const { logger } = options;
  const idleMs = options.idleInTransactionMs ?? 30_000;
  const turn = new TurnLock();
  const open = new Set<Connection>();
  let nextId = 1;

  /** Runs one frontend message on PGlite and answers the backend messages it produced. */
  const exec = async (message: Buffer): Promise<Buffer> => {
    const chunks: Uint8Array[] = [];
    await pglite.runExclusive(() =>
      pglite.execProtocolRawStream(new Uint8Array(message), { onRawData: (data) => chunks.push(Uint8Array.from(data)) }),
    );
    return Buffer.concat(chunks);
  };

  class Connection {
    readonly id = nextId++;
    private buffer: Buffer = Buffer.alloc(0);
    /** Complete frontend messages not yet run; `type` '' is the startup message. */
    private readonly queue: Array<{ type: string; message: Buffer }> = [];
    private started = false;
    private holding = false;
    private running = false;
    private closed = false;
    private timer: NodeJS.Timeout | undefined;
    private readonly statements = new Set<string>();
    private settled: () => void = () => undefined;
    /** Resolves once the connection closed and its clean-up ran. */
    readonly done = new Promise<void>((resolve) => (this.settled = resolve));

    constructor(readonly socket: Socket) {
      socket.setNoDelay(true);
      socket.on('data', (data) => this.receive(data));
      socket.on('error', () => undefined);
      socket.on('close', () => void this.finish());
    }

    private receive(data: Buffer): void {
      this.buffer = this.buffer.length === 0 ? data : Buffer.concat([this.buffer, data]);
      for (;;) {
        if (!this.started) {
          if (this.buffer.length < 8) break;
          const length = this.buffer.readInt32BE(0);
          if (this.buffer.length < length) break;
          const code = this.buffer.readInt32BE(4);
          const message = this.buffer.subarray(0, length);
          this.buffer = this.buffer.subarray(length);
          if (code === SSL_REQUEST || code === GSSENC_REQUEST) this.socket.write('N');
          else if (code === CANCEL_REQUEST) this.socket.destroy();
          else if (code === PROTOCOL_3) {
            this.started = true;
            this.queue.push({ type: '', message: Buffer.from(message) });
          } else {
            this.fail('08P01', `unsupported protocol ${code}`);
            return;
          }
          continue;
        }
        if (this.buffer.length < 5) break;
        const length = this.buffer.readInt32BE(1) + 1;
        if (this.buffer.length < length) break;
        this.queue.push({ type: String.fromCharCode(this.buffer[0] ?? 0), message: Buffer.from(this.buffer.subarray(0, length)) });
        this.buffer = this.buffer.subarray(length);
      }
      void this.pump();
    }

    /** Runs queued messages, taking the turn first, and gives the turn back at an idle sync point. */
    private async pump(): Promise<void> {
      if (this.running || this.closed) return;
      this.running = true;
      try {
        while (this.queue.length > 0 && !this.closed) {
          if (!this.holding) {
            await turn.acquire();
            this.holding = true;
            if (this.closed) break;
          }
          clearTimeout(this.timer);
          const { type, message } = this.queue.shift() as { type: string; message: Buffer };
          if (type === 'X') {
            this.socket.end();
            break;
          }
          const answer = await exec(this.rename(type, message));
          if (!this.socket.destroyed) this.socket.write(answer);
          const status = lastReadyStatus(answer);
          if (status === 'I' && (type === '' || type === 'S' || type === 'Q')) {
            this.holding = false;
            turn.release();
            // Others queued meanwhile go first; this connection queues again behind them.
            if (this.queue.length > 0) await new Promise((r) => setImmediate(r));
          }
        }
        if (this.holding && !this.closed) {
          this.timer = setTimeout(() => {
            logger.warn({ connection: this.id, idleMs }, 'closing a connection idle in a transaction');
            this.socket.destroy();
          }, idleMs);
          this.timer.unref();
        }
      } catch (err: unknown) {
        logger.error({ err, connection: this.id }, 'database message failed; closing the connection');
        this.socket.destroy();
      } finally {
        this.running = false;
      }
    }

    /** Prefixes statement and portal names with this connection's id (unnamed ones stay unnamed). */
    private rename(type: string, message: Buffer): Buffer {
      const own = (name: string) => (name === '' ? '' : `c${this.id}_${name}`);
      const body = message.subarray(5);
      if (type === 'P') {
        const [name, at] = cstring(body, 0);
        if (name !== '') this.statements.add(own(name));
        return typed('P', Buffer.concat([cstr(own(name)), body.subarray(at)]));
      }
      if (type === 'B') {
        const [portal, at] = cstring(body, 0);
        const [statement, rest] = cstring(body, at);
        return typed('B', Buffer.concat([cstr(own(portal)), cstr(own(statement)), body.subarray(rest)]));
      }
      if (type === 'E') {
        const [portal, at] = cstring(body, 0);
        return typed('E', Buffer.concat([cstr(own(portal)), body.subarray(at)]));
      }
      if (type === 'D' || type === 'C') {
        const kind = String.fromCharCode(body[0] ?? 0);
        const [name] = cstring(body, 1);
        if (type === 'C' && kind === 'S') this.statements.delete(own(name));
        return typed(type, Buffer.concat([body.subarray(0, 1), cstr(own(name))]));
      }
      return message;
    }

    private fail(code: string, text: string): void {
      const fields = Buffer.concat([Buffer.from('SFATAL\0', 'utf8'), cstr(`C${code}`), cstr(`M${text}`), Buffer.from([0])]);
      this.socket.end(typed('E', fields));
    }

    /** On close: waits for the turn, rolls back what the connection left open, drops its statements. */
    private async finish(): Promise<void> {
      if (this.closed) return;
      this.closed = true;
      clearTimeout(this.timer);
      open.delete(this);
      while (this.running) await new Promise((r) => setImmediate(r));
      const wasHolding = this.holding;
      if (!wasHolding) await turn.acquire();
      try {
        // Left between turns the session is idle; left holding it, it may be mid-statement or in a transaction.
        if (wasHolding && lastReadyStatus(await exec(typed('S', Buffer.alloc(0)))) !== 'I') await exec(query('ROLLBACK'));
        for (const name of this.statements) await exec(query(`DEALLOCATE "${name.replaceAll('"', '""')}"`));
      } catch (err: unknown) {
        logger.error({ err, connection: this.id }, 'cleaning up a closed connection failed');
      } finally {
        this.holding = false;
        turn.release();
        this.settled();
      }
    }
  }

  const server = createServer((socket) => {
    const connection = new Connection(socket);
    open.add(connection);
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
    host: options.host,
    port,
    connections: () => open.size,
    close: async () => {
      const closing = new Promise<void>((resolve) => server.close(() => resolve()));
      const connections = [...open];
      for (const connection of connections) connection.socket.destroy();
      await Promise.all([closing, ...connections.map((c) => c.done)]);
    },
  };
}

/** The transaction status of the last ReadyForQuery in `answer` ('I', 'T', 'E'), or undefined. */
export function lastReadyStatus(answer: Buffer): string | undefined {
  let status: string | undefined;
  let at = 0;
  while (at + 5 <= answer.length) {
    const type = answer[at];
    const length = answer.readInt32BE(at + 1);
    if (type === 0x5a && length === 5 && at + 6 <= answer.length) status = String.fromCharCode(answer[at + 5] ?? 0);
    at += 1 + length;
  }
  return status;
}
