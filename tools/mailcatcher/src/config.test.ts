import { fileURLToPath } from 'node:url';
import { ConfigError } from '@wordgame/config';
import { composeProblems } from '@wordgame/testkit';
import { configSchema, loadConfig } from './config.js';

const root = fileURLToPath(new URL('../../../', import.meta.url));

describe('mail catcher configuration', () => {
  it('defaults to SMTP 1025 and the view on 1080, and names a bad variable', () => {
    expect(loadConfig({})).toMatchObject({ MAILCATCHER_SMTP_PORT: 1025, MAILCATCHER_HTTP_PORT: 1080 });
    expect(() => loadConfig({ MAILCATCHER_SMTP_PORT: 'smtp' })).toThrow(ConfigError);
    expect(() => loadConfig({ MAILCATCHER_SMTP_PORT: 'smtp' })).toThrow(/MAILCATCHER_SMTP_PORT/);
  });

  it('docker-compose service mailcatcher names existing paths and only variables the config knows', () => {
    expect(composeProblems(root, 'mailcatcher', Object.keys(configSchema.shape))).toEqual([]);
  });
});
