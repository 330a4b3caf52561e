import { Writable } from 'node:stream';
import { Code, ConnectError } from '@connectrpc/connect';
import { createLogger } from '@wordgame/logging';
import { relayFailure } from '../src/botlink/relay.js';

function capturingLogger(): { lines: string[]; logger: ReturnType<typeof createLogger> } {
  const lines: string[] = [];
  const sink = new Writable({
    write(chunk: Buffer, _encoding, done) {
      lines.push(chunk.toString());
      done();
    },
  });
  return { lines, logger: createLogger('intake-failure-test', 'debug', sink) };
}

const coded = (code: string, cause?: unknown): Error => Object.assign(new Error(`${code} happened`, { cause }), { code });

describe('relayFailure: a network failure below the backend call answers Unavailable', () => {
  it.each([
    ['a refused connection wrapped in a cancelled HTTP/2 stream', coded('ERR_HTTP2_STREAM_CANCEL', coded('ECONNREFUSED'))],
    [
      'an AggregateError of every address refusing',
      new Error('connect failed', { cause: new AggregateError([coded('ECONNREFUSED'), coded('ECONNREFUSED')]) }),
    ],
    ['a connection reset', coded('ECONNRESET')],
    ['an HTTP/2 session error', coded('ERR_HTTP2_SESSION_ERROR')],
  ])('%s', (_name, err) => {
    const { lines, logger } = capturingLogger();
    const answer = relayFailure('ForwardPayment', err, logger);
    expect(answer.code).toBe(Code.Unavailable);
    expect(answer.rawMessage).toBe('the backend is unavailable');
    expect(lines.join('')).toContain('backend intake unreachable');
  });

  it('answers Internal, logged as an error, for a failure that is not the network', () => {
    const { lines, logger } = capturingLogger();
    const answer = relayFailure('ForwardPayment', new Error('boom', { cause: coded('ENOENT') }), logger);
    expect(answer.code).toBe(Code.Internal);
    expect(lines.join('')).toContain('backend intake failed');
    expect(relayFailure('ForwardPayment', new ConnectError('order_id is not a uuid', Code.InvalidArgument), logger).code).toBe(
      Code.InvalidArgument,
    );
  });
});
