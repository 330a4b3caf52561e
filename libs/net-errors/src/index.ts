/**
 * One classifier of network errors for every process: which codes mean the peer could not be
 * reached or went away, and how deep an error's causes are followed to find one.
 */
export { CAUSE_LEVELS, MAX_ERRORS, causeChain } from './chain.js';
export {
  CONNECT_TIMEOUT_CODE,
  REFUSED_STREAM_CODE,
  isNetworkFailure,
  networkFailure,
  neverReached,
  type NetworkFailure,
} from './classify.js';
