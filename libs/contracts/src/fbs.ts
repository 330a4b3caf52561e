/** FlatBuffers tables of backend payloads (generated from fbs/). */
export { CheckRequest } from './gen/fbs/backend/fb/check-request.js';
export { CheckResponse } from './gen/fbs/backend/fb/check-response.js';
export { ChatEligibilityQuery } from './gen/fbs/backend/fb/chat-eligibility-query.js';
export { ChatEligibility } from './gen/fbs/backend/fb/chat-eligibility.js';
export { PreCheckoutQuery } from './gen/fbs/backend/fb/pre-checkout-query.js';
export { PreCheckoutVerdict } from './gen/fbs/backend/fb/pre-checkout-verdict.js';
export { PlatformPayment } from './gen/fbs/backend/fb/platform-payment.js';
export { PlatformPaymentResult } from './gen/fbs/backend/fb/platform-payment-result.js';
