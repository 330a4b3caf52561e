import { Code, ConnectError } from '@connectrpc/connect';
import { codedConnectError, ERROR_CODE_HEADER, ERRORS, type ErrorCode, type RestErrorCode } from '@wordgame/contracts';
import { failureOf } from '../src/console/backend.js';
import { ApiError } from '../src/http/api-error.js';
import { fromBackendError } from '../src/http/backend-errors.js';

const all = Object.keys(ERRORS) as ErrorCode[];
/** What a backend may name: every code it raises, plus what its error edge answers for hidden failures. */
const fromBackend = all.filter((c) => ERRORS[c].audience !== 'edge' || c === 'internal' || c === 'backend_unavailable');
const DETAIL = 'detail from the backend (db at 10.0.0.5)';

describe('the REST edge maps each registry code to its status', () => {
  it.each(fromBackend)(
    '%s from the backend answers its registry status; only a client code keeps its name and the backend message',
    (code) => {
      const mapped = fromBackendError(codedConnectError(code, DETAIL));
      expect(mapped?.status).toBe(ERRORS[code].http);
      if (ERRORS[code].audience === 'client') {
        expect(mapped).toMatchObject({ code, message: DETAIL });
      } else {
        expect(mapped?.message).toBe(ERRORS[mapped?.code ?? 'internal'].message);
        expect(mapped?.message).not.toBe(DETAIL);
      }
    },
  );

  it('answers every code it raises itself with the registry status and default message', () => {
    for (const code of all.filter((c) => ERRORS[c].audience !== 'service') as RestErrorCode[]) {
      expect({ code, status: new ApiError(code).status, message: new ApiError(code).message }).toEqual({
        code,
        status: ERRORS[code].http,
        message: ERRORS[code].message,
      });
    }
  });

  it('maps a code it does not know (a newer backend during a rolling deploy) by Connect code, never echoing name or message', () => {
    const future = (code: Code) => fromBackendError(new ConnectError(DETAIL, code, { [ERROR_CODE_HEADER]: 'some_future_code' }));
    expect(future(Code.FailedPrecondition)).toMatchObject({ code: 'conflict', status: 409, message: ERRORS.conflict.message });
    expect(future(Code.InvalidArgument)).toMatchObject({ code: 'invalid_request', status: 400, message: ERRORS.invalid_request.message });
    expect(future(Code.Unavailable)).toMatchObject({
      code: 'backend_unavailable',
      status: 503,
      message: ERRORS.backend_unavailable.message,
    });
    expect(future(Code.DataLoss)).toMatchObject({ code: 'internal', status: 500, message: 'internal error' });
  });

  it('answers backend_unavailable for a network failure anywhere below the Connect error, whatever its Connect code', () => {
    const refused = Object.assign(new Error('connect ECONNREFUSED 10.0.0.5:8080'), { code: 'ECONNREFUSED' });
    const cancelled = Object.assign(new Error('stream cancelled', { cause: refused }), { code: 'ERR_HTTP2_STREAM_CANCEL' });
    const failed = (cause: unknown) => fromBackendError(new ConnectError(DETAIL, Code.Internal, undefined, undefined, cause));
    expect(failed(cancelled)).toMatchObject({ code: 'backend_unavailable', status: 503, message: ERRORS.backend_unavailable.message });
    expect(failed(new AggregateError([refused], 'every address failed'))).toMatchObject({ code: 'backend_unavailable', status: 503 });
    expect(failed(new Error('wrapped', { cause: refused }))).toMatchObject({ code: 'backend_unavailable', status: 503 });
    expect(failed(new Error('a bug', { cause: Object.assign(new Error('no file'), { code: 'ENOENT' }) }))).toMatchObject({
      code: 'internal',
      status: 500,
    });
  });
});

describe('the console maps backend failures through the registry', () => {
  it.each(all.filter((c) => ERRORS[c].audience !== 'edge'))('%s keeps its name and message at its registry status', (code) => {
    expect(failureOf(codedConnectError(code, DETAIL))).toEqual({
      errorCode: code,
      code: ERRORS[code].connect,
      message: DETAIL,
      status: ERRORS[code].http,
    });
  });

  it('answers hidden, transport and unknown failures 502 with a generic message', () => {
    const generic = 'the backend could not answer; try again';
    expect(failureOf(codedConnectError('internal', DETAIL))).toMatchObject({ errorCode: 'internal', status: 502, message: generic });
    expect(failureOf(codedConnectError('backend_unavailable', DETAIL))).toMatchObject({
      errorCode: 'unavailable',
      status: 502,
      message: generic,
    });
    expect(failureOf(new ConnectError(DETAIL, Code.DeadlineExceeded))).toMatchObject({
      errorCode: 'unavailable',
      status: 502,
      message: generic,
    });
    expect(failureOf(new ConnectError(DETAIL, Code.FailedPrecondition, { [ERROR_CODE_HEADER]: 'some_future_code' }))).toMatchObject({
      errorCode: 'internal',
      status: 502,
      message: generic,
    });
  });
});
