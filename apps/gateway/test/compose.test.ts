import { fileURLToPath } from 'node:url';
import { composeProblems, undocumentedVariables } from '@wordgame/testkit';
import { gatewayConfigSchema } from '../src/config.js';

const root = fileURLToPath(new URL('../../../', import.meta.url));

describe('docker-compose service gateway', () => {
  it('names existing paths and only variables the config knows', () => {
    expect(composeProblems(root, 'gateway', Object.keys(gatewayConfigSchema.shape))).toEqual([]);
  });

  it('documents every config variable in the README', () => {
    expect(undocumentedVariables(root, Object.keys(gatewayConfigSchema.shape))).toEqual([]);
  });
});
