import { type PlatformEmulator, type TgChatMember, type TgUpdate } from './index.js';
import { callApi, startCheckedEmulator } from './test-helpers.js';

let emu: PlatformEmulator;

beforeAll(async () => {
  emu = await startCheckedEmulator();
});
afterAll(() => emu.stop());
beforeEach(() => emu.control.reset());

const getMember = (chat_id: number, user_id: number) => callApi<TgChatMember>(emu, 'getChatMember', { chat_id, user_id });

function setUp(): { chatId: number; userId: number } {
  const chatId = emu.control.createChat({ type: 'supergroup', title: 'Discussion' }).id;
  const userId = emu.control.createUser({ firstName: 'Bo' }).user.id;
  return { chatId, userId };
}

describe('getChatMember', () => {
  it('reports left, then member after a join', async () => {
    const { chatId, userId } = setUp();
    expect((await getMember(chatId, userId)).body.result).toEqual({
      status: 'left',
      user: { id: userId, is_bot: false, first_name: 'Bo' },
    });
    emu.control.join({ chatId, userId });
    expect((await getMember(chatId, userId)).body.result?.status).toBe('member');
  });

  it('reports the bot itself as an administrator with its rights', async () => {
    const { chatId } = setUp();
    const me = (await callApi<{ id: number }>(emu, 'getMe')).body.result?.id ?? 0;
    expect((await getMember(chatId, me)).body.result).toMatchObject({
      status: 'administrator',
      can_restrict_members: true,
      is_anonymous: false,
    });
  });

  it('answers PARTICIPANT_ID_INVALID, chat not found and invalid user_id', async () => {
    const { chatId } = setUp();
    expect((await getMember(chatId, 424242)).body).toEqual({
      ok: false,
      error_code: 400,
      description: 'Bad Request: PARTICIPANT_ID_INVALID',
    });
    expect((await getMember(-100999, 1)).body.description).toBe('Bad Request: chat not found');
    expect((await getMember(chatId, 0)).body.description).toBe('Bad Request: invalid user_id specified');
  });

  it('reports what the control API set', async () => {
    const { chatId, userId } = setUp();
    emu.control.setMember({ chatId, userId, status: 'administrator', rights: { can_delete_messages: true } });
    expect((await getMember(chatId, userId)).body.result).toMatchObject({
      status: 'administrator',
      can_delete_messages: true,
      can_restrict_members: false,
    });
  });
});

describe('restrictChatMember', () => {
  it('records the permissions and returns true; all true lifts the restriction', async () => {
    const { chatId, userId } = setUp();
    emu.control.join({ chatId, userId });
    const answer = await callApi(emu, 'restrictChatMember', {
      chat_id: chatId,
      user_id: userId,
      permissions: { can_send_messages: false, can_send_polls: false },
      use_independent_chat_permissions: true,
    });
    expect(answer.body).toEqual({ ok: true, result: true });
    const member = (await getMember(chatId, userId)).body.result;
    expect(member).toMatchObject({ status: 'restricted', is_member: true, can_send_messages: false, until_date: 0 });

    const all = Object.fromEntries(
      [
        'can_send_messages',
        'can_send_audios',
        'can_send_documents',
        'can_send_photos',
        'can_send_videos',
        'can_send_video_notes',
        'can_send_voice_notes',
        'can_send_polls',
        'can_send_other_messages',
        'can_add_web_page_previews',
        'can_change_info',
        'can_invite_users',
        'can_pin_messages',
        'can_manage_topics',
      ].map((k) => [k, true]),
    );
    await callApi(emu, 'restrictChatMember', { chat_id: chatId, user_id: userId, permissions: all });
    expect((await getMember(chatId, userId)).body.result?.status).toBe('member');
  });

  it('lets broad permissions imply narrow ones unless independent', async () => {
    const { chatId, userId } = setUp();
    await callApi(
      emu,
      'restrictChatMember',
      {
        chat_id: chatId,
        user_id: userId,
        permissions: JSON.stringify({ can_send_polls: true }),
      },
      { encoding: 'form' },
    );
    expect((await getMember(chatId, userId)).body.result).toMatchObject({
      status: 'restricted',
      is_member: false,
      can_send_polls: true,
      can_send_messages: true,
    });
  });

  it('sends chat_member updates for joins and restrictions to a bot that asked for them', async () => {
    const { chatId, userId } = setUp();
    await callApi(emu, 'getUpdates', { allowed_updates: ['chat_member'] });
    emu.control.join({ chatId, userId });
    await callApi(emu, 'restrictChatMember', { chat_id: chatId, user_id: userId, permissions: { can_send_messages: false } });
    const updates = (await callApi<TgUpdate[]>(emu, 'getUpdates')).body.result ?? [];
    const changes = updates.map((u) => u['chat_member'] as { old_chat_member: TgChatMember; new_chat_member: TgChatMember });
    expect(changes.map((c) => [c.old_chat_member.status, c.new_chat_member.status])).toEqual([
      ['left', 'member'],
      ['member', 'restricted'],
    ]);
    expect(updates[0]?.['chat_member']).toMatchObject({ chat: { id: chatId, type: 'supergroup' }, from: { id: userId } });
  });

  it('answers Telegram errors for bad permissions, chats, rights and admins', async () => {
    const { chatId, userId } = setUp();
    const restrict = (params: Record<string, unknown>) =>
      callApi(emu, 'restrictChatMember', { chat_id: chatId, user_id: userId, permissions: {}, ...params });
    expect((await restrict({ permissions: '{' })).body.description).toBe("Bad Request: can't parse permissions JSON object");
    expect((await restrict({ permissions: { can_send_messages: 'no' } })).body.description).toBe(
      'Bad Request: can\'t parse chat permissions: Field "can_send_messages" must be of type Boolean',
    );
    const group = emu.control.createChat({ type: 'group' }).id;
    expect((await restrict({ chat_id: group })).body.description).toBe('Bad Request: method is available only for supergroups');
    const weak = emu.control.createChat({ type: 'supergroup', botRights: { can_restrict_members: false } }).id;
    expect((await restrict({ chat_id: weak })).body.description).toBe('Bad Request: not enough rights to restrict/unrestrict chat member');
    emu.control.setMember({ chatId, userId, status: 'administrator' });
    expect((await restrict({})).body.description).toBe('Bad Request: user is an administrator of the chat');
    expect((await restrict({ user_id: 777777 })).body.description).toBe('Bad Request: PARTICIPANT_ID_INVALID');
  });
});
