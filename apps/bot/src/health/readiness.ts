/** What /readyz reports: ready only when the link is up and the platform answered recently. */
export type Readiness = {
  status: 'ok' | 'degraded';
  linkConnected: boolean;
  /** Unix seconds of the platform's last 2xx (0 = never). */
  platformLastOkUnix: string;
  platformRecent: boolean;
};

export interface ReadinessDeps {
  linkConnected: () => boolean;
  /** The platform client's last-success stamp (HealthCounters.lastOkUnix). */
  lastOkUnix: () => bigint;
  /** One cheap platform call (getMe); a success stamps `lastOkUnix` through the platform client. */
  probePlatform: () => Promise<unknown>;
  /** A success older than this is not "recent": /readyz asks the platform itself (at most once per probe). */
  windowS: number;
  /** Upper bound of that probe, below the container HEALTHCHECK's 3 s timeout. */
  probeTimeoutMs?: number;
  nowUnix?: () => number;
}

/**
 * The bot's readiness: its bot-link stream is open (the gateway accepted it) and the platform
 * answered within `windowS` — from the poller's traffic when it owns updates, else from a getMe
 * this check makes itself (concurrent checks share one probe), so a bot that does not poll is
 * judged on the platform too.
 */
export function createReadiness(deps: ReadinessDeps): () => Promise<Readiness> {
  const now = deps.nowUnix ?? (() => Math.floor(Date.now() / 1000));
  let probing: Promise<void> | undefined;
  const recent = () => deps.lastOkUnix() > 0n && BigInt(now()) - deps.lastOkUnix() <= BigInt(deps.windowS);
  const probe = (): Promise<void> => {
    probing ??= (async () => {
      let timer: NodeJS.Timeout | undefined;
      try {
        await Promise.race([
          deps.probePlatform(),
          new Promise(
            (_, reject) => (timer = setTimeout(() => reject(new Error('platform probe timed out')), deps.probeTimeoutMs ?? 2_000)),
          ),
        ]);
      } catch {
        // Not reachable: readiness below reports it.
      } finally {
        clearTimeout(timer);
        probing = undefined;
      }
    })();
    return probing;
  };
  return async () => {
    const linkConnected = deps.linkConnected();
    if (linkConnected && !recent()) await probe();
    const platformRecent = recent();
    return {
      status: linkConnected && platformRecent ? 'ok' : 'degraded',
      linkConnected,
      platformLastOkUnix: deps.lastOkUnix().toString(),
      platformRecent,
    };
  };
}
