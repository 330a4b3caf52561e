import { base } from '../../jest.preset.js';

export default { ...base, displayName: 'contracts', rootDir: import.meta.dirname };
