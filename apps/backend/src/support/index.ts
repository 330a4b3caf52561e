/**
 * The support module's one public entry: the one clock, the bounded pool and the ticker the background
 * loops run on. Other features import from here only.
 */
export { type Clock, systemClock, utcText } from './clock.js';
export { forEachPooled } from './pool.js';
export { createTicker, type Ticker } from './ticker.js';
