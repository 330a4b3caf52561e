/**
 * The operator's policy pages as the dev stack and the test stacks state them
 * (PRIVACY_POLICY_URL, TERMS_OF_SERVICE_URL: required by the gateway and the bot, no default).
 */
export const DEV_POLICY_LINKS = {
  PRIVACY_POLICY_URL: 'https://wordgame.example/legal/privacy',
  TERMS_OF_SERVICE_URL: 'https://wordgame.example/legal/terms',
} as const;
