export { parseConfig, ConfigError, env } from './parse.js';
