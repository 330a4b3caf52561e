export { CONFIG_FROM, parseConfig, ConfigError, env } from './parse.js';
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
export {
  DEV_STACK_DIR,
  DEV_STACK_PID,
  STACK_ENV_FILE,
  processAlive,
  readStackEnv,
  removeStackEnv,
  withDevStack,
  writeStackEnv,
} from './dev-stack.js';
export { connectionCaps, fileReserve, openFileLimit, type CapIssue, type ResolvedCaps } from './listeners.js';
