import { base } from '../../jest.preset.js';

export default {
  ...base,
  displayName: 'platform-emulator',
  rootDir: import.meta.dirname,
  setupFilesAfterEnv: ['<rootDir>/test/setup-conformance.ts'],
};
