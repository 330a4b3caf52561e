/**
 * The cluster module's one public entry: the failover transport that sends a call to the next of
 * several gateways when it never reached one. Other features import from here only.
 */
export { failoverTransport } from './failover.js';
