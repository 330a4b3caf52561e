/**
 * Wire contracts shared by the services: protobuf messages and services generated from proto/
 * (namespaced by package) and FlatBuffers tables generated from fbs/, plus the envelope helpers
 * that carry a FlatBuffers table inside a Connect message body, and the one registry of domain
 * error codes (errors.ts) that the backend throws and the gateway maps.
 */
export * as botlink from './gen/proto/botlink/v1/botlink_pb.js';
export * as connector from './gen/proto/connector/v1/connector_pb.js';
export * as gatewayApi from './gen/proto/gateway/v1/commands_pb.js';
export * as backendApi from './backend-api.js';
export * as fb from './fbs.js';
export { encodeTable, decodeTable, FlatBufferDecodeError } from './envelope.js';
export { commandOutcomeOf, toSendResponse, type CommandOutcome } from './command-outcome.js';
export {
  ERRORS,
  ERROR_CODE_HEADER,
  RETRY_AFTER_HEADER,
  HINT_UNLOCK_HEADER,
  DomainError,
  rateLimited,
  codedConnectError,
  toConnectError,
  errorCodeOf,
  isErrorCode,
  type ErrorSpec,
  type ErrorAudience,
  type ErrorCode,
  type DomainErrorCode,
  type RestErrorCode,
} from './errors.js';
export {
  isChargeIdShape,
  isSupportLanguage,
  STAR_CHARGES_DEFAULT,
  STAR_CHARGES_MAX,
  SUPPORT_LANGUAGES,
  SUPPORT_TEXT_MAX,
  supportTextProblem,
} from './support-case.js';
