import { base } from '../../jest.preset.js';

export default { ...base, displayName: 'bot', rootDir: import.meta.dirname };
