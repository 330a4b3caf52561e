import { fileURLToPath } from 'node:url';
import { composeProblems, undocumentedVariables } from '@wordgame/testkit';
import { botConfigSchema } from '../src/config.js';

const root = fileURLToPath(new URL('../../../', import.meta.url));

describe('docker-compose service bot', () => {
  it('names existing paths and only variables the config knows', () => {
    expect(composeProblems(root, 'bot', Object.keys(botConfigSchema.shape))).toEqual([]);
  });

  it('documents every config variable in the README', () => {
    expect(undocumentedVariables(root, Object.keys(botConfigSchema.shape))).toEqual([]);
  });
});
