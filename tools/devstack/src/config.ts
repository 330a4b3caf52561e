import { env } from '@wordgame/config';
import { z } from 'zod';

/** The ports the stack listens on (all on 127.0.0.1). */
export interface StackPorts {
  /** The embedded PostgreSQL (the stack's DATABASE_URL). */
  database: number;
  platform: number;
  provider: number;
  backend: number;
  gatewayHttp: number;
  botlink: number;
  botHealth: number;
  /** The gateway's internal BotCommandService (the backend pushes bot commands there). */
  gatewayInternal: number;
  /** The gateway's `/metrics` listener (loopback), apart from its public REST port. */
  gatewayMetrics: number;
  backendMetrics: number;
}

export const DEFAULT_PORTS: StackPorts = {
  database: 5433,
  platform: 8081,
  provider: 8082,
  backend: 4000,
  gatewayHttp: 8080,
  botlink: 8443,
  botHealth: 8090,
  gatewayInternal: 8444,
  gatewayMetrics: 9464,
  backendMetrics: 9465,
};

/** The variable that moves each of `npm start`'s ports (README's table lists them). */
export const PORT_VARIABLES = {
  database: 'DEV_DATABASE_PORT',
  platform: 'DEV_PLATFORM_PORT',
  provider: 'DEV_PROVIDER_PORT',
  backend: 'DEV_BACKEND_PORT',
  gatewayHttp: 'DEV_GATEWAY_PORT',
  botlink: 'DEV_BOTLINK_PORT',
  botHealth: 'DEV_BOT_HEALTH_PORT',
  gatewayInternal: 'DEV_GATEWAY_INTERNAL_PORT',
  gatewayMetrics: 'DEV_GATEWAY_METRICS_PORT',
  backendMetrics: 'DEV_BACKEND_METRICS_PORT',
} as const satisfies Record<keyof StackPorts, string>;

const WHAT: Record<keyof StackPorts, string> = {
  database: "the stack's database (PostgreSQL protocol)",
  platform: 'the chat-platform (Bot API) emulator',
  provider: 'the payment provider (YooKassa v3) emulator',
  backend: "the backend's Connect listener",
  gatewayHttp: "the gateway's public REST, wallet page and console",
  botlink: "the gateway's bot-link gRPC server (mutual TLS)",
  botHealth: "the bot's loopback health probe",
  gatewayInternal: "the gateway's internal BotCommandService (the backend pushes bot commands there)",
  gatewayMetrics: "the gateway's loopback /metrics",
  backendMetrics: "the backend's loopback /metrics",
};

const shape = Object.fromEntries(
  (Object.keys(PORT_VARIABLES) as (keyof StackPorts)[]).map((key) => [
    PORT_VARIABLES[key],
    env.port(DEFAULT_PORTS[key]).describe(`Port of ${WHAT[key]} under \`npm start\`.`),
  ]),
) as Record<(typeof PORT_VARIABLES)[keyof StackPorts], ReturnType<typeof env.port>>;

/** `npm start`'s own variables: where each process of the local stack listens (all on 127.0.0.1). */
export const devStackConfigSchema = z.object(shape).superRefine((config, ctx) => {
  const seen = new Map<number, string>();
  for (const name of Object.values(PORT_VARIABLES)) {
    const port = config[name];
    if (port === 0) continue;
    const other = seen.get(port);
    if (other !== undefined)
      ctx.addIssue({ code: 'custom', path: [name], message: `${port} is also ${other}'s port: each process needs its own` });
    else seen.set(port, name);
  }
});

/** The stack's ports from the parsed config. */
export function stackPortsOf(config: z.infer<typeof devStackConfigSchema>): StackPorts {
  return Object.fromEntries(
    (Object.keys(PORT_VARIABLES) as (keyof StackPorts)[]).map((key) => [key, config[PORT_VARIABLES[key]]]),
  ) as unknown as StackPorts;
}
