import { fileURLToPath } from 'node:url';
import { k8sProblems, renderOverlay, secretVariables } from '@wordgame/testkit';
import { configSchema } from './config.js';

const root = fileURLToPath(new URL('../../../', import.meta.url));

describe('Kubernetes dev overlay: provider-emulator', () => {
  it('sets only variables the config knows, and every credential from a Secret', () => {
    const shape = configSchema.shape;
    expect(k8sProblems(renderOverlay(root, 'dev'), 'provider-emulator', Object.keys(shape), secretVariables(shape))).toEqual([]);
  });
});
