export { parseConfig, ConfigError, env } from './parse.js';
export { isSecretField, stripCredentials } from './secret.js';
export { NKEY_USER_SEED, natsClientIssues, type NatsClientVariables } from './nats.js';
