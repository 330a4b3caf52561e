import { BotApiChecker } from '../src/conformance/checker.js';
import { committedBotApiSchema, generateBotApiSchema } from '../src/conformance/schema.js';

describe('the committed Bot API schema', () => {
  it('is what @grammyjs/types generates now (run `npm run bot-api-schema` after upgrading it)', () => {
    expect(committedBotApiSchema()).toBe(generateBotApiSchema());
  });

  it('accepts the published shapes and refuses what they exclude', () => {
    const checker = new BotApiChecker();
    const user = { id: 7, is_bot: false, first_name: 'Ann' };
    expect(checker.checkResult('getChatMember', { status: 'left', user })).toEqual([]);
    expect(checker.checkResult('getChatMember', { status: 'restricted', user, is_member: true, until_date: 0 })).toContain(
      "(root) must have required property 'can_react_to_messages'",
    );
    expect(
      checker.checkResult('sendMessage', {
        message_id: 1,
        date: 1,
        chat: { id: 7, type: 'private', first_name: 'Ann' },
        text: 'hi',
        entities: [],
      }),
    ).toEqual([]);
    expect(
      checker.checkError({ ok: false, error_code: 429, description: 'Too Many Requests: retry after 3', parameters: { retry_after: 3 } }),
    ).toEqual([]);
    expect(checker.checkError({ ok: false, error_code: 429, description: 'x', parameters: { retry_after: '3' } })).toEqual([
      '/parameters/retry_after must be number',
    ]);
    expect(
      checker.checkUpdate({ update_id: 1, message: { message_id: 1, chat: { id: 7, type: 'private', first_name: 'Ann' } } }),
    ).toContain("/message must have required property 'date'");
  });
});
