/**
 * Test-only entry (`@wordgame/platform-emulator/conformance`): the published Bot API shapes the
 * emulator follows and the checker that holds answers against them. Uses ajv, a devDependency:
 * import it from tests only.
 */
export { BotApiChecker, type Divergence } from './checker.js';
export type { BotApiError, BotApiResults, BotApiUpdate, EmulatedMethod } from './published.js';
