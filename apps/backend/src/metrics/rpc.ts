import type { DescService } from '@bufbuild/protobuf';
import { Code } from '@connectrpc/connect';
import { Counter, type Registry } from 'prom-client';
import { DomainError } from '../rpc/index.js';
import { edgeCode } from '../server/index.js';
import type { ServiceRegistration } from '@wordgame/h2-unary';
import { MethodCounter, SeriesHistogram, methodRecorder, type MethodRecorder } from './method-series.js';

/** RPC series: one `method` label per procedure (`Service/Method`), a closed set; no ids. */
export interface RpcMetrics {
  requests: MethodCounter;
  duration: SeriesHistogram;
  rateLimited: Counter<'method'>;
}

/** Registers `backend_rpc_requests_total{method,code}`, `backend_rpc_duration_seconds{method}`, `backend_rate_limit_refusals_total{method}`. */
export function createRpcMetrics(registry: Registry): RpcMetrics {
  const registers = [registry];
  return {
    requests: new MethodCounter(
      'backend_rpc_requests_total',
      'Connect calls served, by procedure and answered code (ok, or the Connect code in snake_case: invalid_argument, unavailable, internal, ...).',
      registers,
    ),
    duration: new SeriesHistogram(
      'backend_rpc_duration_seconds',
      'Time to answer a unary Connect call, by procedure (handler start to answer or error).',
      [0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10],
      registers,
    ),
    rateLimited: new Counter({
      name: 'backend_rate_limit_refusals_total',
      help: 'Calls refused by a rate limit (sign-in failures, order creation, confirmation mails), by procedure.',
      labelNames: ['method'],
      registers,
    }),
  };
}

/** `resource_exhausted` for Code.ResourceExhausted: the label value of a Connect code. */
export function codeLabel(code: Code): string {
  return (Code[code] ?? 'unknown').replace(/([a-z])([A-Z])/g, '$1_$2').toLowerCase();
}

type Handler = (req: unknown, ctx: unknown) => unknown;

/** The procedures a rate limit guards (limits/): their refusal series exist at zero from the start. */
const RATE_LIMITED = new Set([
  'AccountService/OpenDirectSession',
  'AccountService/UpdateProfile',
  'PaymentsService/CreateOrder',
  'ConsoleService/SignIn',
]);

/**
 * Wraps every method of every registered implementation so both ways a call arrives (the unary
 * fast path and connect-node, which a Connect interceptor alone would not cover) are measured:
 * unary calls get their duration and code, streams their code when they end. The code is the
 * one the error edge answers with (edgeCode). Registrations are returned new; impls are untouched.
 */
export function instrumentServices(registrations: readonly ServiceRegistration[], metrics: RpcMetrics): ServiceRegistration[] {
  return registrations.map(({ service, impl }) => ({ service, impl: instrumentImpl(service, impl as Record<string, unknown>, metrics) }));
}

function instrumentImpl(service: DescService, impl: Record<string, unknown>, metrics: RpcMetrics): object {
  const out: Record<string, unknown> = { ...impl };
  for (const method of service.methods) {
    const handler = impl[method.localName];
    if (typeof handler !== 'function') continue;
    const label = `${service.name}/${method.name}`;
    const recorder = methodRecorder(metrics.requests, method.methodKind === 'unary' ? metrics.duration : undefined, label);
    if (RATE_LIMITED.has(label)) metrics.rateLimited.inc({ method: label }, 0);
    out[method.localName] =
      method.methodKind === 'unary'
        ? unary(label, (handler as Handler).bind(impl), metrics, recorder)
        : streaming(label, (handler as Handler).bind(impl), metrics, recorder);
  }
  return out;
}

function failed(label: string, err: unknown, metrics: RpcMetrics): void {
  if (err instanceof DomainError && err.code === 'rate_limited') metrics.rateLimited.inc({ method: label });
  metrics.requests.inc({ method: label, code: codeLabel(edgeCode(err)) });
}

function unary(label: string, handler: Handler, metrics: RpcMetrics, recorder: MethodRecorder): Handler {
  return async (req, ctx) => {
    const started = performance.now();
    try {
      const res = await handler(req, ctx);
      recorder.ok();
      return res;
    } catch (err: unknown) {
      failed(label, err, metrics);
      throw err;
    } finally {
      recorder.observe((performance.now() - started) / 1000);
    }
  };
}

function streaming(label: string, handler: Handler, metrics: RpcMetrics, recorder: MethodRecorder): Handler {
  return async function* (req, ctx) {
    try {
      yield* handler(req, ctx) as AsyncIterable<unknown>;
      recorder.ok();
    } catch (err: unknown) {
      failed(label, err, metrics);
      throw err;
    }
  };
}
