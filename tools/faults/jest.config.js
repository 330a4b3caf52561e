import { base } from '../../jest.preset.js';

export default { ...base, displayName: 'faults', rootDir: import.meta.dirname };
