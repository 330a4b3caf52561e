import { createLogger, type Logger } from '@wordgame/logging';

/** One parsed pino line. */
export interface LogLine {
  level: number;
  msg: string;
  [key: string]: unknown;
}

/** A real pino logger whose JSON lines are kept in memory, for asserting on what was logged. */
export function captureLogs(level: 'debug' | 'info' = 'debug'): { logger: Logger; lines: LogLine[] } {
  const lines: LogLine[] = [];
  const logger = createLogger('bot', level, {
    write(chunk: string) {
      for (const line of chunk.split('\n')) if (line.trim() !== '') lines.push(JSON.parse(line) as LogLine);
    },
  });
  return { logger, lines };
}

/** pino's numeric error level. */
export const ERROR = 50;
