/**
 * The support module's one public entry: the one clock, the bounded pool and the ticker the background
 * loops run on, and the JSON shape of the data export. Other features import from here only.
 */
export { type Clock, systemClock, utcText } from './clock.js';
export { forEachPooled } from './pool.js';
export { isoOrNull, type JsonValue } from './json.js';
export { createTicker, type Ticker } from './ticker.js';
