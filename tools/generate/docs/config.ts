import { describeVariables } from '@wordgame/config';
import type { z } from 'zod';
import { backendConfigSchema } from '../../../apps/backend/src/config/index.js';
import { botConfigSchema } from '../../../apps/bot/src/config.js';
import { gatewayConfigSchema } from '../../../apps/gateway/src/config.js';
import { devStackConfigSchema } from '../../devstack/src/config.js';
import { configSchema as mailcatcherConfigSchema } from '../../mailcatcher/src/config.js';
import { configSchema as platformEmulatorConfigSchema } from '../../platform-emulator/src/config.js';
import { configSchema as providerEmulatorConfigSchema } from '../../provider-emulator/src/config.js';
import { code, header, table } from './markdown.js';

/** A process that parses its environment against a schema, and where that schema is. */
export interface ConfigSource {
  readonly title: string;
  readonly source: string;
  readonly schema: z.ZodObject;
}

/** Every process with a config schema: the services, then the dev and test tools. */
export const CONFIG_SOURCES: readonly ConfigSource[] = [
  { title: 'Backend', source: 'apps/backend/src/config/index.ts', schema: backendConfigSchema },
  { title: 'Gateway', source: 'apps/gateway/src/config.ts', schema: gatewayConfigSchema },
  { title: 'Bot', source: 'apps/bot/src/config.ts', schema: botConfigSchema },
  {
    title: 'Provider emulator (dev stack and tests)',
    source: 'tools/provider-emulator/src/config.ts',
    schema: providerEmulatorConfigSchema,
  },
  {
    title: 'Platform emulator (dev stack and tests)',
    source: 'tools/platform-emulator/src/config.ts',
    schema: platformEmulatorConfigSchema,
  },
  { title: 'Mail catcher (dev stack)', source: 'tools/mailcatcher/src/config.ts', schema: mailcatcherConfigSchema },
  { title: 'Dev stack (`npm start`)', source: 'tools/devstack/src/config.ts', schema: devStackConfigSchema },
];

/** docs/reference/config.md: one table per process; throws when a variable has no description. */
export function renderConfig(sources: readonly ConfigSource[] = CONFIG_SOURCES): string {
  const sections = sources.map(({ title, source, schema }) => {
    const rows = describeVariables(schema).map((v) => [
      code(v.name),
      v.accepts,
      v.defaultValue ?? (v.required ? '—' : 'unset'),
      v.required ? 'yes' : 'no',
      v.secret ? 'yes' : 'no',
      v.description,
    ]);
    return [
      `## ${title}`,
      '',
      `Schema: \`${source}\`.`,
      '',
      table(['variable', 'accepts', 'default', 'required', 'secret', 'description'], rows),
      '',
    ].join('\n');
  });
  return [
    header('Configuration reference', 'the config schemas (zod) of each process'),
    'Each process parses its environment once at start against its schema; a bad or missing variable stops it',
    'with a non-zero exit and a message naming the variable (e.g. `BOTLINK_PORT: must be a port number 0-65535',
    '(got "abc")`). An empty value counts as unset. The value of a secret variable is never echoed, in a',
    'message or a log line. "required" means the process does not start without it; a variable that is',
    'required only together with another says so in its description.',
    '',
    ...sections,
  ].join('\n');
}
