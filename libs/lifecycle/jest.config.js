import { base } from '../../jest.preset.js';

export default { ...base, displayName: 'lifecycle', rootDir: import.meta.dirname };
