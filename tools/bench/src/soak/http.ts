/** An HTTP answer as the soak checks it: the status and the parsed JSON body (or the text). */
export interface Answer {
  status: number;
  body: unknown;
}

/** A request of the soak: JSON in and out, an optional bearer token, a 15 s deadline. */
export async function call(
  url: string,
  options: { method?: string; token?: string; json?: unknown; headers?: Record<string, string> } = {},
): Promise<Answer> {
  const headers: Record<string, string> = { ...options.headers };
  if (options.token !== undefined) headers['authorization'] = `Bearer ${options.token}`;
  if (options.json !== undefined) headers['content-type'] = 'application/json';
  const res = await fetch(url, {
    method: options.method ?? (options.json === undefined ? 'GET' : 'POST'),
    headers,
    ...(options.json === undefined ? {} : { body: JSON.stringify(options.json) }),
    signal: AbortSignal.timeout(15_000),
  });
  const text = await res.text();
  let body: unknown = text;
  try {
    body = JSON.parse(text) as unknown;
  } catch {
    // not JSON: keep the text
  }
  return { status: res.status, body };
}

/** Fails with a short message unless `answer` has `status`. */
export function expectStatus(answer: Answer, status: number, what: string): void {
  if (answer.status !== status) throw new Error(`${what}: HTTP ${answer.status} ${JSON.stringify(answer.body).slice(0, 160)}`);
}

/** A field of a JSON object body, or undefined. */
export function field(body: unknown, name: string): unknown {
  return typeof body === 'object' && body !== null ? (body as Record<string, unknown>)[name] : undefined;
}

/**
 * Polls `check` every `everyMs` until it answers a value other than undefined, and returns it;
 * fails with `what` after `timeoutMs`. For outcomes that arrive through other processes.
 */
export async function until<T>(check: () => Promise<T | undefined>, what: string, timeoutMs: number, everyMs = 200): Promise<T> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const value = await check();
    if (value !== undefined) return value;
    if (Date.now() >= deadline) throw new Error(`timed out after ${timeoutMs} ms waiting for ${what}`);
    await new Promise((r) => setTimeout(r, everyMs));
  }
}
