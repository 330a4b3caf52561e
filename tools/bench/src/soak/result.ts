import type { AuditOutcome } from '../services.js';
import type { PaymentsCheck } from './payments-check.js';
import type { ServiceName } from './stack.js';
import type { KindTotal } from './tally.js';
import type { ErrorVerdict, MemoryVerdict } from './verdict.js';

/** Everything a soak measured and its verdict; `passed` is false when any reason was found. */
export interface SoakResult {
  passed: boolean;
  reasons: string[];
  seconds: number;
  kinds: KindTotal[];
  memory: Record<ServiceName, MemoryVerdict>;
  errors: ErrorVerdict;
  payments: PaymentsCheck;
  audit: AuditOutcome;
}
