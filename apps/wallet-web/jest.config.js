import { base } from '../../jest.preset.js';

export default { ...base, displayName: 'wallet-web', rootDir: import.meta.dirname };
