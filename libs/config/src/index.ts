export { parseConfig, ConfigError, env } from './parse.js';
export { stripCredentials } from './secret.js';
