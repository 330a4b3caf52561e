import { fileURLToPath } from 'node:url';
import { composeProblems } from '@wordgame/testkit';
import { configSchema } from './config.js';

const root = fileURLToPath(new URL('../../../', import.meta.url));

describe('docker-compose service provider-emulator', () => {
  it('names existing paths and only variables the config knows', () => {
    expect(composeProblems(root, 'provider-emulator', Object.keys(configSchema.shape))).toEqual([]);
  });
});
