/** Small helpers the loops share: backoff with jitter, abortable sleeps and bounded waits, background task tracking. */
export { Backoff, delayAfter, type BackoffOptions } from './backoff.js';
export { TaskSet } from './tasks.js';
export { settleWithin, sleep } from './time.js';
