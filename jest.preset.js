import { fileURLToPath } from 'node:url';

/**
 * Shared jest settings: TypeScript run as native ESM through ts-jest (transpile only; `typecheck`
 * does the type checking), tests under src/ and test/, a long default timeout because tests start
 * real servers and databases, and an exit guard that fails a project whose tests left something
 * open instead of letting it hang (tools/test/jest-exit-guard.mjs).
 */
export const base = {
  testEnvironment: 'node',
  extensionsToTreatAsEsm: ['.ts'],
  moduleNameMapper: { '^(\\.{1,2}/.*)\\.js$': '$1' },
  transform: { '^.+\\.ts$': ['ts-jest', { useESM: true, tsconfig: '<rootDir>/tsconfig.json' }] },
  testMatch: ['<rootDir>/src/**/*.test.ts', '<rootDir>/test/**/*.test.ts'],
  testTimeout: 30000,
  globalTeardown: fileURLToPath(new URL('./tools/test/jest-exit-guard.mjs', import.meta.url)),
};
