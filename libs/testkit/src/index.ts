/** Test and dev support shared by apps and tools: certificates for the bot-link's mutual TLS. */
export { ensureDevCerts, issueLeaf, makeCa, type CertPair, type DevCerts, type LeafOptions } from './certs.js';
export { composeProblems, workspaceDirs } from './compose.js';
export { undocumentedVariables } from './readme.js';
export { freePort } from './ports.js';
