/**
 * A process's settled memory, read through its inspector: a full garbage collection, then
 * `process.memoryUsage()` in the process itself. RSS cannot tell a leak from V8 growing its heap
 * to its working size (a 240 s soak here: the backend's RSS climbs 217 -> 383 MiB over 155 s and
 * falls back to 230 MiB), so the soak judges what survives a full GC: the V8 heap in use plus the
 * memory outside it that JavaScript objects hold (Buffers, ArrayBuffers).
 */
export interface SettledMemory {
  /** heapUsed + external after a full GC, MiB. */
  retainedMiB: number;
  heapUsedMiB: number;
  externalMiB: number;
}

const MIB = 1024 * 1024;

interface InspectorReply {
  id?: number;
  result?: { result?: { value?: unknown } };
  error?: { message?: string };
}

/**
 * Collects garbage in the process whose inspector listens at `wsUrl` (its
 * `ws://127.0.0.1:<port>/<id>` from `--inspect=127.0.0.1:0`) and reads its memory afterwards.
 * Fails when the inspector does not answer within `deadlineMs` (a GC of a few hundred MiB takes
 * well under a second; the default covers a machine loaded many times over).
 */
export async function settledMemory(wsUrl: string, deadlineMs = 60_000): Promise<SettledMemory> {
  const socket = new WebSocket(wsUrl);
  const pending = new Map<number, { resolve: (reply: InspectorReply) => void; reject: (err: Error) => void }>();
  let nextId = 1;
  const failAll = (err: Error) => {
    for (const p of pending.values()) p.reject(err);
    pending.clear();
  };
  socket.addEventListener('message', (event: MessageEvent) => {
    const reply = JSON.parse(String(event.data)) as InspectorReply;
    if (reply.id === undefined) return;
    const waiter = pending.get(reply.id);
    pending.delete(reply.id);
    if (!waiter) return;
    if (reply.error) waiter.reject(new Error(`inspector: ${reply.error.message ?? 'error'}`));
    else waiter.resolve(reply);
  });
  socket.addEventListener('close', () => failAll(new Error(`inspector ${wsUrl} closed`)));
  socket.addEventListener('error', () => failAll(new Error(`inspector ${wsUrl} failed`)));
  const send = (method: string, params: object = {}) =>
    new Promise<InspectorReply>((resolve, reject) => {
      const id = nextId++;
      pending.set(id, { resolve, reject });
      socket.send(JSON.stringify({ id, method, params }));
    });
  let timer: NodeJS.Timeout | undefined;
  const deadline = new Promise<never>((_, reject) => {
    timer = setTimeout(() => reject(new Error(`inspector ${wsUrl}: no answer in ${deadlineMs} ms`)), deadlineMs);
  });
  try {
    return await Promise.race([
      (async () => {
        await new Promise<void>((resolve, reject) => {
          socket.addEventListener('open', () => resolve(), { once: true });
          socket.addEventListener('error', () => reject(new Error(`inspector ${wsUrl} refused`)), { once: true });
        });
        // Twice: objects freed by the first collection's finalizers go in the second.
        await send('HeapProfiler.collectGarbage');
        await send('HeapProfiler.collectGarbage');
        const reply = await send('Runtime.evaluate', {
          expression: 'JSON.stringify(process.memoryUsage())',
          returnByValue: true,
        });
        const value = reply.result?.result?.value;
        if (typeof value !== 'string') throw new Error(`inspector ${wsUrl}: memoryUsage answered ${JSON.stringify(value)}`);
        const usage = JSON.parse(value) as { heapUsed: number; external: number };
        return {
          heapUsedMiB: usage.heapUsed / MIB,
          externalMiB: usage.external / MIB,
          retainedMiB: (usage.heapUsed + usage.external) / MIB,
        };
      })(),
      deadline,
    ]);
  } finally {
    clearTimeout(timer);
    socket.close();
  }
}
