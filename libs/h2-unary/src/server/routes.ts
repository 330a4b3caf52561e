import type http2 from 'node:http2';
import type { DescMethodUnary, DescService, MessageShape } from '@bufbuild/protobuf';
import { createMethodImplSpec, type ContextValues, type HandlerContext, type Interceptor, type MethodImplSpec } from '@connectrpc/connect';
import { invokeUnaryImplementation } from '@connectrpc/connect/protocol';
import { headersOf, type UnaryExchange } from './lifecycle.js';

/** One service as registered with the Connect router: its descriptor and implementation. */
export interface ServiceRegistration {
  service: DescService;
  impl: object;
}

/** A unary method with its implementation, as connect-node's router holds it. */
export type UnaryRoute = MethodImplSpec & { kind: 'unary'; method: DescMethodUnary };

/** The unary methods of `registrations`, by request path (`/<service>/<method>`). */
export function unaryRoutes(registrations: readonly ServiceRegistration[]): Map<string, UnaryRoute> {
  const routes = new Map<string, UnaryRoute>();
  for (const { service, impl } of registrations) {
    for (const method of service.methods) {
      const fn = (impl as Record<string, unknown>)[method.localName];
      if (method.methodKind !== 'unary' || typeof fn !== 'function') continue;
      routes.set(`/${service.typeName}/${method.name}`, createMethodImplSpec(method, fn.bind(impl) as never) as UnaryRoute);
    }
  }
  return routes;
}

/**
 * Runs `route` on `input` through `interceptors` with connect's own invoker (the one connect-node
 * runs), so both paths see the same chain, the same normalised output and the same header copying.
 */
export function invokeRoute(
  route: UnaryRoute,
  context: HandlerContext,
  input: MessageShape<DescMethodUnary['input']>,
  interceptors: Interceptor[],
): Promise<MessageShape<DescMethodUnary['output']>> {
  return invokeUnaryImplementation(route, context, input, interceptors);
}

/** The Connect HandlerContext of a unary call served by `serveUnary`. */
export function handlerContext(
  method: DescMethodUnary,
  headers: http2.IncomingHttpHeaders,
  exchange: UnaryExchange,
  protocolName: 'connect' | 'grpc',
  values: ContextValues,
  scheme: 'http' | 'https',
): HandlerContext {
  return {
    method,
    service: method.parent,
    signal: exchange.signal,
    timeoutMs: exchange.timeoutMs,
    requestMethod: 'POST',
    requestHeader: headersOf(headers),
    responseHeader: exchange.responseHeader,
    responseTrailer: exchange.responseTrailer,
    protocolName,
    values,
    url: `${scheme}://${headers[':authority'] ?? 'localhost'}${headers[':path'] ?? ''}`,
  };
}
