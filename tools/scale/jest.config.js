import { base } from '../../jest.preset.js';

export default { ...base, displayName: 'scale', rootDir: import.meta.dirname };
