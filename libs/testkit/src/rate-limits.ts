/**
 * Generous backend rate limits for the test and load harnesses (fuzz, soak, bench, faults), which
 * sign in, fail sign-ins, sign up and create orders fast from one address: set explicitly here so the
 * production defaults stay strict. A test of the limits themselves sets its own small values.
 */
export const TEST_RATE_LIMITS: Record<string, string> = {
  SIGNIN_MAX_FAILURES: '1000000',
  SIGNIN_ADDRESS_MAX_FAILURES: '1000000',
  ORDER_CREATE_MAX: '1000000',
  ORDER_CREATE_ADDRESS_MAX: '1000000',
  CONFIRMATION_MAIL_MAX: '1000000',
  CONFIRMATION_MAIL_ADDRESS_MAX: '1000000',
  CONFIRMATION_MAIL_RECIPIENT_MAX: '1000000',
  STAR_CHARGES_LIST_MAX: '1000000',
  SUPPORT_CASE_OPEN_MAX: '1000000',
  CODE_REDEEM_MAX: '1000000',
  CODE_REDEEM_ADDRESS_MAX: '1000000',
  SUBSCRIPTION_EDIT_MAX: '1000000',
  SUBSCRIPTION_EDIT_ADDRESS_MAX: '1000000',
};
