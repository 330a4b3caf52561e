/** Test and dev support shared by apps and tools: bot-link certificates, free ports, fresh PostgreSQL databases, signed launch data, README and compose checks. */
export { ensureDevCerts, issueLeaf, makeCa, type CertPair, type DevCerts, type LeafOptions } from './certs.js';
export { composeProblems, insecureComposeDefaults, workspaceDirs } from './compose.js';
export { undocumentedVariables } from './readme.js';
export { freePort } from './ports.js';
export { adminQuery, freshDatabase, grantChips, testServerUrl, type FreshDatabase } from './postgres.js';
export { signTelegramInitData, vkSign } from './launch-data.js';
