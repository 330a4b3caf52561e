import { base } from '../../jest.preset.js';

export default { ...base, displayName: 'provider-emulator', rootDir: import.meta.dirname };
