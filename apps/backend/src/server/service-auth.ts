import { ServiceGate } from '@wordgame/h2-unary';
import type { Logger } from '@wordgame/logging';

const PROBES = new Set(['/health', '/healthz', '/livez', '/readyz']);

/**
 * The backend's service gate: every call must present BACKEND_SERVICE_TOKEN (only the gateway
 * holds it), so nobody else can name an account in `X-Account-Id`. Only the probes stay open:
 * `GET /livez` (the process answers) and `GET /readyz`, `/health`, `/healthz` (the database
 * answers); they act as no account. Each refusal is logged (reason, method, path, peer address; never the credential).
 */
export function backendGate(token: string, logger: Logger): ServiceGate {
  return new ServiceGate({
    token,
    open: (method, path) => method === 'GET' && PROBES.has(path),
    onRefused: (refusal) => logger.warn(refusal, 'backend call refused: no valid service token'),
  });
}
