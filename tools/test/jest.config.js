import { base } from '../../jest.preset.js';

export default { ...base, displayName: 'test-setup', rootDir: import.meta.dirname };
