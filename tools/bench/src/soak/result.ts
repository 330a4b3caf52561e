import type { AuditOutcome } from '../services.js';
import type { PaymentsCheck } from './payments-check.js';
import type { ServiceName } from './stack.js';
import type { KindTotal } from './tally.js';
import type { ErrorVerdict, MemoryVerdict, RetainedVerdict } from './verdict.js';

/** Everything a soak measured and its verdict; `passed` is false when any reason was found. */
export interface SoakResult {
  passed: boolean;
  reasons: string[];
  seconds: number;
  kinds: KindTotal[];
  /** RSS per service (judged only in long runs). */
  memory: Record<ServiceName, MemoryVerdict>;
  /** Memory after a full GC per service, at the end of warm-up and at the end. */
  retained: Record<ServiceName, RetainedVerdict>;
  errors: ErrorVerdict;
  payments: PaymentsCheck;
  audit: AuditOutcome;
}
