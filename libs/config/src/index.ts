export { parseConfig, ConfigError, env } from './parse.js';
export { isSecretField, stripCredentials } from './secret.js';
export { NKEY_USER_SEED, natsClientIssues, type NatsClientVariables } from './nats.js';
export {
  describeVariables,
  undescribedVariables,
  markKind,
  UndescribedVariablesError,
  DEFAULT_TEXT_META,
  type VariableReference,
} from './reference.js';
