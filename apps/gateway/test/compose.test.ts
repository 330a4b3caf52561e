import { fileURLToPath } from 'node:url';
import { composeProblems } from '@wordgame/testkit';
import { undescribedVariables } from '@wordgame/config';
import { gatewayConfigSchema } from '../src/config.js';

const root = fileURLToPath(new URL('../../../', import.meta.url));

describe('docker-compose service gateway', () => {
  it('names existing paths and only variables the config knows', () => {
    expect(composeProblems(root, 'gateway', Object.keys(gatewayConfigSchema.shape))).toEqual([]);
  });

  it('describes every config variable in its schema (docs/reference/config.md is generated from it)', () => {
    expect(undescribedVariables(gatewayConfigSchema)).toEqual([]);
  });
});
