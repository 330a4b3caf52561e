import { createLogger } from '@wordgame/logging';
import { runService, stopSteps } from '../src/index.js';

const mode = process.argv[2] ?? 'ok';
const logger = createLogger('fixture', 'info');

runService(
  {
    start: () => {
      if (mode === 'fail-start') return Promise.reject(new Error('boom'));
      logger.info('started');
      setInterval(() => undefined, 1000);
      return Promise.resolve();
    },
    stop: async () => {
      if (mode === 'hang-stop') await new Promise(() => undefined);
      if (mode === 'hang-step') {
        const { step } = stopSteps(logger);
        await step('quick', () => undefined);
        await step('listeners', () => Promise.all([step('fine', () => undefined), step('stuck', () => new Promise(() => undefined))]));
      }
      logger.info('stopped by service');
    },
  },
  logger,
  300,
);
