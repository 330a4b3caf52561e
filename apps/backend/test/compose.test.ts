import { fileURLToPath } from 'node:url';
import { composeProblems, undocumentedVariables } from '@wordgame/testkit';
import { backendConfigSchema } from '../src/config/index.js';

const root = fileURLToPath(new URL('../../../', import.meta.url));

describe('docker-compose service backend', () => {
  it('names existing paths and only variables the config knows', () => {
    expect(composeProblems(root, 'backend', Object.keys(backendConfigSchema.shape))).toEqual([]);
  });

  it('documents every config variable in the README', () => {
    expect(undocumentedVariables(root, Object.keys(backendConfigSchema.shape))).toEqual([]);
  });
});
