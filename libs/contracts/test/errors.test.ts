import { readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { Code, ConnectError } from '@connectrpc/connect';
import {
  codedConnectError,
  DomainError,
  ERROR_CODE_HEADER,
  errorCodeOf,
  ERRORS,
  HINT_UNLOCK_HEADER,
  rateLimited,
  RETRY_AFTER_HEADER,
  toConnectError,
  type DomainErrorCode,
} from '../src/index.js';

const SOURCE = readFileSync(fileURLToPath(new URL('../src/errors.ts', import.meta.url)), 'utf8');
const entries = Object.entries(ERRORS);

describe('the error registry', () => {
  it('defines each code exactly once in its source, in snake_case', () => {
    const defined = [...SOURCE.matchAll(/^ {2}([a-z0-9_]+): spec\(/gm)].map((m) => m[1]);
    expect(defined.length).toBe(entries.length);
    expect(new Set(defined).size).toBe(defined.length);
    for (const code of defined) expect(code).toMatch(/^[a-z][a-z0-9]*(_[a-z0-9]+)*$/);
  });

  it('gives every code a real Connect code, a 4xx/5xx HTTP status, an audience and a one-line default message', () => {
    const connectCodes = new Set(Object.values(Code).filter((v) => typeof v === 'number'));
    for (const [code, spec] of entries) {
      expect({ code, known: connectCodes.has(spec.connect) && spec.connect !== Code.Unknown }).toEqual({ code, known: true });
      expect({ code, http: spec.http >= 400 && spec.http <= 599 }).toEqual({ code, http: true });
      expect(['client', 'service', 'edge']).toContain(spec.audience);
      expect({ code, message: /^[^\n]{3,120}$/.test(spec.message) }).toEqual({ code, message: true });
    }
  });

  it('keeps the failures nobody caused (internal, the unavailable ones) at 5xx and every client fault at 4xx', () => {
    for (const [code, spec] of entries) {
      if (spec.connect === Code.Internal || spec.connect === Code.Unavailable)
        expect({ code, http: spec.http >= 500 }).toEqual({ code, http: true });
      if (spec.connect === Code.InvalidArgument || spec.connect === Code.Unauthenticated || spec.connect === Code.PermissionDenied) {
        expect({ code, http: spec.http < 500 }).toEqual({ code, http: true });
      }
    }
  });

  it('names three distinct lower-case metadata headers', () => {
    const headers = [ERROR_CODE_HEADER, RETRY_AFTER_HEADER, HINT_UNLOCK_HEADER];
    expect(new Set(headers).size).toBe(3);
    for (const h of headers) expect(h).toMatch(/^x-[a-z-]+$/);
  });
});

describe('DomainError on the wire', () => {
  const raisable = entries.filter(([, spec]) => spec.audience !== 'edge').map(([code]) => code as DomainErrorCode);

  it('round-trips every code the backend may raise: Connect code from the registry, code in x-error-code, the message kept', () => {
    for (const code of raisable) {
      const wire = toConnectError(new DomainError(code, `detail of ${code}`));
      expect({ code, connect: wire.code, named: wire.metadata.get(ERROR_CODE_HEADER), message: wire.rawMessage }).toEqual({
        code,
        connect: ERRORS[code].connect,
        named: code,
        message: `detail of ${code}`,
      });
      expect(errorCodeOf(wire)).toBe(code);
    }
  });

  it('uses the default message without a detail and carries extra metadata next to the code', () => {
    expect(new DomainError('unknown_game').message).toBe(ERRORS.unknown_game.message);
    const limited = toConnectError(rateLimited(42));
    expect(limited.code).toBe(Code.ResourceExhausted);
    expect(limited.metadata.get(RETRY_AFTER_HEADER)).toBe('42');
    expect(limited.metadata.get(ERROR_CODE_HEADER)).toBe('rate_limited');
    const locked = toConnectError(new DomainError('hint_locked', 'wait', { [HINT_UNLOCK_HEADER]: '90', [ERROR_CODE_HEADER]: 'forged' }));
    expect(locked.metadata.get(HINT_UNLOCK_HEADER)).toBe('90');
    expect(locked.metadata.get(ERROR_CODE_HEADER)).toBe('hint_locked');
  });

  it('decodes no code from an error that names none or one this build does not know (a newer peer)', () => {
    expect(errorCodeOf(new ConnectError('x', Code.Internal))).toBeUndefined();
    expect(errorCodeOf(new ConnectError('x', Code.FailedPrecondition, { [ERROR_CODE_HEADER]: 'some_future_code' }))).toBeUndefined();
    expect(errorCodeOf(new ConnectError('x', Code.FailedPrecondition, { [ERROR_CODE_HEADER]: 'toString' }))).toBeUndefined();
    expect(errorCodeOf(codedConnectError('internal'))).toBe('internal');
  });
});
