import { base } from '../../jest.preset.js';

export default { ...base, displayName: 'backend', rootDir: import.meta.dirname };
