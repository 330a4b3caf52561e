import { lookup } from 'node:dns/promises';
import { isIP } from 'node:net';

/** Resolves a host name to every address it has (node's `lookup` with `all`). */
export type ResolveAll = (host: string) => Promise<string[]>;

const systemResolve: ResolveAll = async (host) => (await lookup(host, { all: true })).map((a) => a.address);

/**
 * The replicas behind configured service URLs: a URL whose host is an address stays as it is; a
 * host name becomes one URL per DNS address (so a headless service name spreads over every
 * replica). A name that does not resolve is skipped (logged by the caller through `onError`); the
 * answer is deduplicated and keeps the configured order.
 */
export async function expandEndpoints(
  urls: readonly string[],
  resolve: ResolveAll = systemResolve,
  onError?: (url: string, err: unknown) => void,
): Promise<string[]> {
  const out: string[] = [];
  for (const raw of urls) {
    const url = new URL(raw);
    const host = url.hostname.replace(/^\[|\]$/g, '');
    if (isIP(host) !== 0 || host === 'localhost') {
      out.push(trimSlash(url));
      continue;
    }
    try {
      for (const address of await resolve(host)) {
        const each = new URL(url);
        each.hostname = isIP(address) === 6 ? `[${address}]` : address;
        out.push(trimSlash(each));
      }
    } catch (err: unknown) {
      onError?.(raw, err);
    }
  }
  return [...new Set(out)];
}

function trimSlash(url: URL): string {
  return url.href.replace(/\/+$/, '');
}
