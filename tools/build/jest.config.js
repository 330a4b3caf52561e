import { base } from '../../jest.preset.js';

export default { ...base, displayName: 'build', rootDir: import.meta.dirname };
