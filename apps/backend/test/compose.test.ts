import { fileURLToPath } from 'node:url';
import { composeProblems } from '@wordgame/testkit';
import { undescribedVariables } from '@wordgame/config';
import { backendConfigSchema } from '../src/config/index.js';

const root = fileURLToPath(new URL('../../../', import.meta.url));

describe('docker-compose service backend', () => {
  it('names existing paths and only variables the config knows', () => {
    expect(composeProblems(root, 'backend', Object.keys(backendConfigSchema.shape))).toEqual([]);
  });

  it('describes every config variable in its schema (docs/reference/config.md is generated from it)', () => {
    expect(undescribedVariables(backendConfigSchema)).toEqual([]);
  });
});
