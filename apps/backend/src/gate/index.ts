/**
 * The store-compliance gate's one public entry: the session's platform context (segment, subtype,
 * payment methods) and the gate deciding what a platform may show or sell. Other features import from here only.
 */
export {
  isPlatformSubtype,
  isSegment,
  parsePlatformHeader,
  PAYMENT_METHODS,
  type PaymentMethod,
  type PlatformSubtype,
  type Segment,
  SEGMENTS,
  type SessionPlatform,
  type SessionPlatformKind,
} from './context.js';
export { gate, type GateDecision } from './gate.js';
