import type { ServiceImpl } from '@connectrpc/connect';
import { backendApi, decodeTable, encodeTable, fb } from '@wordgame/contracts';
import type { SystemStatus } from './check.js';

/** FlatBuffers body of a CheckResponse. */
export function encodeCheckResponse(s: SystemStatus): Uint8Array {
  return encodeTable((b) => {
    const status = b.createString(s.status);
    const version = b.createString(s.version);
    const database = b.createString(s.database);
    return fb.CheckResponse.createCheckResponse(b, status, version, database, s.databaseLatencyUs, s.uptimeSeconds);
  });
}

/** backend.v1.SystemService: answers the backend's status for the gateway's readiness probe. */
export function systemService(check: () => Promise<SystemStatus>): ServiceImpl<typeof backendApi.SystemService> {
  return {
    async check(request) {
      decodeTable(
        request.body,
        (bb) => fb.CheckRequest.getRootAsCheckRequest(bb),
        () => undefined,
      );
      return { body: encodeCheckResponse(await check()) };
    },
  };
}
