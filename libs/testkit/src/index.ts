/** Test and dev support shared by apps and tools: bot-link certificates, service tokens, generous rate limits, free ports, silent and stalled client sockets, fresh PostgreSQL databases, the embedded PostgreSQL server `npm test` and `npm start` run, signed launch data, the e-mail confirmation page, README and compose checks, and where the test binaries (Chromium, nats-server) are. */
export {
  CONTAINER_UID,
  DEV_BOT_CLIENT_NAME,
  ensureDevCerts,
  ensureNatsCert,
  issueLeaf,
  makeCa,
  writeServiceCertDirs,
  type CertPair,
  type DevCerts,
  type LeafOptions,
  type NatsCertDir,
  type ServiceCertDir,
} from './certs.js';
export { randomServiceTokens, TEST_SERVICE_TOKENS, type ServiceTokens } from './service-tokens.js';
export { TEST_RATE_LIMITS } from './rate-limits.js';
export { DEV_POLICY_LINKS } from './policy-links.js';
export { composeEnvironment, composeExposureProblems, composeProblems, insecureComposeDefaults, workspaceDirs } from './compose.js';
export { freePort } from './ports.js';
export { settlesAtOnce, settlesWithin } from './deadline.js';
export { CHROMIUM_COMMANDS, chromiumPath, findChromium, findNatsServer, findOnPath, natsServerPath, type BinaryEnv } from './binaries.js';
export {
  embeddedBinDir,
  postgresUser,
  runnableBinDir,
  serverAnswers,
  startPostgresCluster,
  type ClusterOptions,
  type PostgresCluster,
  type RunAs,
} from './embedded-postgres.js';
export { adminQuery, freshDatabase, grantChips, testServerUrl, type FreshDatabase } from './postgres.js';
export { signTelegramInitData, vkSign } from './launch-data.js';
export { floodRequest, rssBytes, type FloodOptions, type FloodResult } from './h2-flood.js';
export { startChildService, type ChildService } from './child-service.js';
export { confirmByPage, confirmForm, confirmOutcome, type ConfirmPageResult } from './confirm-page.js';
export {
  NATS_CONF,
  natsSubjectVariables,
  natsUserKeys,
  startNatsServer,
  type NatsServerOptions,
  type NatsTestServer,
  type NatsUser,
} from './nats.js';
export { k8sProblems, kustomize, podTemplates, renderOverlay, secretVariables, type K8sObject, type K8sOverlay } from './k8s.js';
export {
  openStalled,
  PARTIAL_CLIENT_HELLO,
  PARTIAL_H2_PREFACE,
  PARTIAL_REQUEST_HEAD,
  socketBudget,
  type StalledSockets,
} from './stalled-sockets.js';
