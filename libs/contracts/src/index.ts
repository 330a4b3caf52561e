/**
 * Wire contracts shared by the services: protobuf messages and services generated from proto/
 * (namespaced by package) and FlatBuffers tables generated from fbs/, plus the envelope helpers
 * that carry a FlatBuffers table inside a Connect message body.
 */
export * as botlink from './gen/proto/botlink/v1/botlink_pb.js';
export * as connector from './gen/proto/connector/v1/connector_pb.js';
export * as gatewayApi from './gen/proto/gateway/v1/commands_pb.js';
export * as backendApi from './backend-api.js';
export * as fb from './fbs.js';
export { encodeTable, decodeTable, FlatBufferDecodeError } from './envelope.js';
