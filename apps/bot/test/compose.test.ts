import { fileURLToPath } from 'node:url';
import { composeEnvironment, composeProblems } from '@wordgame/testkit';
import { undescribedVariables } from '@wordgame/config';
import { botConfigSchema } from '../src/config.js';

const root = fileURLToPath(new URL('../../../', import.meta.url));

describe('docker-compose service bot', () => {
  it('names existing paths and only variables the config knows', () => {
    expect(composeProblems(root, 'bot', Object.keys(botConfigSchema.shape))).toEqual([]);
  });

  it('leaves BOT_INSTANCE_ID unset, so every bot process (also of a scaled service) gets its own', () => {
    const environment = composeEnvironment(root, 'bot');
    expect(environment).toHaveProperty('OWNS_UPDATES');
    expect(environment).not.toHaveProperty('BOT_INSTANCE_ID');
  });

  it('requires the policy links the bot refuses to start without (no default in compose either)', () => {
    const environment = composeEnvironment(root, 'bot');
    expect(String(environment['PRIVACY_POLICY_URL'])).toMatch(/^\$\{PRIVACY_POLICY_URL:\?/);
    expect(String(environment['TERMS_OF_SERVICE_URL'])).toMatch(/^\$\{TERMS_OF_SERVICE_URL:\?/);
  });

  it('describes every config variable in its schema (docs/reference/config.md is generated from it)', () => {
    expect(undescribedVariables(botConfigSchema)).toEqual([]);
  });
});
