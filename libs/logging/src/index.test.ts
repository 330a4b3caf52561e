import { Writable } from 'node:stream';
import { createLogger } from './index.js';

function capture(): { lines: () => Array<Record<string, unknown>>; stream: Writable } {
  const chunks: string[] = [];
  const stream = new Writable({
    write(chunk: Buffer, _enc, done) {
      chunks.push(chunk.toString('utf8'));
      done();
    },
  });
  return {
    stream,
    lines: () =>
      chunks
        .join('')
        .trim()
        .split('\n')
        .map((l) => JSON.parse(l) as Record<string, unknown>),
  };
}

describe('createLogger', () => {
  it('writes one JSON line per entry with service, level, time and message', () => {
    const out = capture();
    createLogger('gateway', 'info', out.stream).info({ requestId: 'r-1' }, 'hello');
    const [line] = out.lines();
    expect(line).toMatchObject({ service: 'gateway', level: 30, requestId: 'r-1', msg: 'hello' });
    expect(typeof line?.['time']).toBe('string');
  });

  it('redacts credentials, tokens, card data and the authorization header', () => {
    const out = capture();
    createLogger('backend', 'info', out.stream).info(
      { password: 'p', token: 't', user: { secret: 's', card: '4111' }, req: { headers: { authorization: 'Bearer x', cookie: 'c' } } },
      'sensitive',
    );
    const text = JSON.stringify(out.lines()[0]);
    for (const leaked of ['"p"', '"t"', '"s"', '4111', 'Bearer x', '"c"']) expect(text).not.toContain(leaked);
    expect(text).toContain('[redacted]');
  });

  it('honours the level', () => {
    const out = capture();
    const logger = createLogger('bot', 'warn', out.stream);
    logger.info('dropped');
    logger.warn('kept');
    expect(out.lines().map((l) => l['msg'])).toEqual(['kept']);
  });
});
