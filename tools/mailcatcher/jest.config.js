import { base } from '../../jest.preset.js';

export default { ...base, displayName: 'mailcatcher', rootDir: import.meta.dirname };
