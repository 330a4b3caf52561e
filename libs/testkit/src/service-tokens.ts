import { randomBytes } from 'node:crypto';

/** The two service secrets, one per direction, as the backend's and gateway's variables. */
export interface ServiceTokens {
  /** The gateway presents it to the backend. */
  BACKEND_SERVICE_TOKEN: string;
  /** The backend presents it to the gateway's internal listener. */
  GATEWAY_INTERNAL_TOKEN: string;
}

/** Fixed tokens for in-process tests, which must also present them from their own clients. */
export const TEST_SERVICE_TOKENS: ServiceTokens = {
  BACKEND_SERVICE_TOKEN: 'test-backend-service-token-0123456789abcdef',
  GATEWAY_INTERNAL_TOKEN: 'test-gateway-internal-token-0123456789abcdef',
};

/** Fresh random tokens (32 random bytes each, base64url) for the dev stack, benches, faults and the soak. */
export function randomServiceTokens(): ServiceTokens {
  return { BACKEND_SERVICE_TOKEN: randomBytes(32).toString('base64url'), GATEWAY_INTERNAL_TOKEN: randomBytes(32).toString('base64url') };
}
