import { z } from 'zod';
import { describeVariables, UndescribedVariablesError, undescribedVariables } from './reference.js';
import { env } from './parse.js';
import { isSecretField } from './secret.js';

describe('describeVariables', () => {
  it('reads what each field accepts, its default, whether it is required or secret, and its description', () => {
    const schema = z.object({
      PORT: env.port(8080).describe('Listener port.'),
      POOL: env.int(20, 1, 500).describe('Pool size.'),
      FAST: env.bool(true).describe('Fast path.'),
      DB: env.secretUrl(['postgres:']).optional().describe('Database URL.'),
      MODE: z.enum(['dev', 'smtp']).default('dev').describe('Mail transport.'),
      TOKEN_A: z.string().describe('Always secret by name.'),
      NAME: env.str().min(32, 'must be at least 32 characters').describe('A long name.'),
      PREFIX: z
        .string()
        .regex(/^[a-z]+$/, 'must be lowercase letters')
        .default('wordgame')
        .describe('Subject prefix.'),
      ID: env
        .str()
        .default(() => String(Math.random()))
        .meta({ description: 'Per-process id.', defaultText: 'random per process' }),
    });
    expect(describeVariables(schema)).toEqual([
      {
        name: 'PORT',
        accepts: 'port number 0-65535',
        defaultValue: '`8080`',
        required: false,
        secret: false,
        description: 'Listener port.',
      },
      { name: 'POOL', accepts: 'whole number 1-500', defaultValue: '`20`', required: false, secret: false, description: 'Pool size.' },
      {
        name: 'FAST',
        accepts: '`true` or `false` (also `1`/`0`, `yes`/`no`)',
        defaultValue: '`true`',
        required: false,
        secret: false,
        description: 'Fast path.',
      },
      { name: 'DB', accepts: 'URL (postgres:)', defaultValue: undefined, required: false, secret: true, description: 'Database URL.' },
      { name: 'MODE', accepts: '`dev`, `smtp`', defaultValue: '`dev`', required: false, secret: false, description: 'Mail transport.' },
      { name: 'TOKEN_A', accepts: 'string', defaultValue: undefined, required: true, secret: true, description: 'Always secret by name.' },
      {
        name: 'NAME',
        accepts: 'string: must not be empty; must be at least 32 characters',
        defaultValue: undefined,
        required: true,
        secret: false,
        description: 'A long name.',
      },
      {
        name: 'PREFIX',
        accepts: 'string: must be lowercase letters',
        defaultValue: '`wordgame`',
        required: false,
        secret: false,
        description: 'Subject prefix.',
      },
      {
        name: 'ID',
        accepts: 'non-empty string',
        defaultValue: 'random per process',
        required: false,
        secret: false,
        description: 'Per-process id.',
      },
    ]);
  });

  it('refuses a schema with a variable that has no description, naming each such variable', () => {
    const schema = z.object({ DOCUMENTED: env.str().describe('Has one.'), BARE: env.str(), ALSO_BARE: env.int(1) });
    expect(undescribedVariables(schema)).toEqual(['BARE', 'ALSO_BARE']);
    expect(() => describeVariables(schema)).toThrow(UndescribedVariablesError);
    expect(() => describeVariables(schema)).toThrow(/BARE, ALSO_BARE/);
  });

  it('refuses a computed default that is not stated in words', () => {
    const schema = z.object({
      ID: env
        .str()
        .default(() => String(Math.random()))
        .describe('Per-process id.'),
    });
    expect(() => describeVariables(schema)).toThrow(/ID: its default is computed anew/);
  });

  it('keeps a secret field secret once it is described', () => {
    const field = env.secret(z.string()).describe('A shop list with keys.');
    expect(isSecretField('SHOPS', field)).toBe(true);
  });
});
