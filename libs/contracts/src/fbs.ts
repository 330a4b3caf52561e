/** FlatBuffers tables of backend payloads (generated from fbs/). */
export { CheckRequest } from './gen/fbs/backend/fb/check-request.js';
export { CheckResponse } from './gen/fbs/backend/fb/check-response.js';
