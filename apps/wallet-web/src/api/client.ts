/** An error answer of the gateway (`{"error":{"code","message"}}`), or `network` when no answer came. */
export class ApiError extends Error {
  override readonly name = 'ApiError';
  constructor(
    readonly status: number,
    readonly code: string,
    message: string,
  ) {
    super(message);
  }
}

/** One REST call's options. */
export interface CallOptions {
  method?: 'GET' | 'POST' | 'PATCH' | 'DELETE';
  body?: unknown;
  token?: string | undefined;
  headers?: Record<string, string>;
}

let language: string | undefined;

/**
 * The page's language, sent as `Accept-Language` on every call from now on: the gateway words the
 * catalog and the invoice in it, so the page, the products and the invoice speak one language
 * (the browser's own header could name another than the platform's the page chose).
 */
export function setCallLanguage(tag: string): void {
  language = tag;
}

/** Calls the gateway's REST API: JSON in and out; a non-2xx answer throws ApiError with its code. */
export async function call<T>(path: string, options: CallOptions = {}): Promise<T> {
  const headers: Record<string, string> = {
    accept: 'application/json',
    ...(language ? { 'accept-language': language } : {}),
    ...options.headers,
  };
  if (options.body !== undefined) headers['content-type'] = 'application/json';
  if (options.token) headers['authorization'] = `Bearer ${options.token}`;
  let res: Response;
  try {
    res = await fetch(`/api/v1${path}`, {
      method: options.method ?? 'GET',
      headers,
      ...(options.body !== undefined ? { body: JSON.stringify(options.body) } : {}),
      credentials: 'omit',
      cache: 'no-store',
    });
  } catch {
    throw new ApiError(0, 'network', 'no answer from the server');
  }
  if (res.status === 204) return undefined as T;
  const body: unknown = await res.json().catch(() => undefined);
  if (res.ok) return body as T;
  const error =
    typeof body === 'object' && body !== null && 'error' in body ? (body.error as { code?: unknown; message?: unknown }) : undefined;
  throw new ApiError(
    res.status,
    typeof error?.code === 'string' ? error.code : 'internal',
    typeof error?.message === 'string' ? error.message : res.statusText,
  );
}
