import { gatewayApi } from './index.js';
import { commandOutcomeOf, toSendResponse, type CommandOutcome } from './command-outcome.js';

describe('command outcome on the wire (gateway.v1.SendResponse)', () => {
  const outcomes: CommandOutcome[] = [
    { status: 'delivered', result: 'https://t.me/$invoice' },
    { status: 'not_delivered' },
    { status: 'failed', error: 'Bad Request: chat not found' },
    { status: 'error', error: 'link_lost' },
    { status: 'timeout' },
    { status: 'no_bot' },
  ];

  it.each(outcomes)('reads back what it writes: %j', (outcome) => {
    expect(commandOutcomeOf(toSendResponse(outcome))).toEqual(outcome);
  });

  it('reads an unknown code, or a failure without a message, as an error that says so', () => {
    const unknown = toSendResponse({ status: 'no_bot' });
    unknown.outcome = 99 as gatewayApi.Outcome;
    expect(commandOutcomeOf(unknown)).toEqual({ status: 'error', error: 'unspecified outcome' });
    expect(commandOutcomeOf(toSendResponse({ status: 'failed', error: '' }))).toEqual({ status: 'failed', error: 'unspecified failure' });
  });
});
