import { base } from '../../jest.preset.js';

export default { ...base, displayName: 'h2-keepalive', rootDir: import.meta.dirname };
