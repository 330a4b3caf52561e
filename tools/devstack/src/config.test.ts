import { ConfigError, parseConfig } from '@wordgame/config';
import { DEFAULT_PORTS, devStackConfigSchema, PORT_VARIABLES, stackPortsOf } from './config.js';

const ports = (env: Record<string, string>) => stackPortsOf(parseConfig(devStackConfigSchema, env));

describe("npm start's ports", () => {
  it('are the README defaults when nothing is set', () => {
    expect(ports({})).toEqual(DEFAULT_PORTS);
    expect(DEFAULT_PORTS.gatewayInternal).toBe(8444);
    expect(DEFAULT_PORTS.backendMetrics).toBe(9465);
  });

  it('each move by its own variable (the internal command port and the backend metrics included)', () => {
    const moved = ports({ DEV_GATEWAY_INTERNAL_PORT: '18444', DEV_BACKEND_METRICS_PORT: '19465', DEV_GATEWAY_PORT: '18080' });
    expect(moved).toEqual({ ...DEFAULT_PORTS, gatewayInternal: 18444, backendMetrics: 19465, gatewayHttp: 18080 });
    expect(new Set(Object.values(PORT_VARIABLES)).size).toBe(Object.keys(DEFAULT_PORTS).length);
  });

  it('refuse a bad value or two processes on one port, naming the variable', () => {
    expect(() => ports({ DEV_BACKEND_METRICS_PORT: 'abc' })).toThrow(ConfigError);
    expect(() => ports({ DEV_BACKEND_METRICS_PORT: 'abc' })).toThrow(/DEV_BACKEND_METRICS_PORT/);
    expect(() => ports({ DEV_GATEWAY_INTERNAL_PORT: '9464' })).toThrow(/DEV_GATEWAY_METRICS_PORT|DEV_GATEWAY_INTERNAL_PORT/);
  });
});
