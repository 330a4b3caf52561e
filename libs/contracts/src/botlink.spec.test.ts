import { existsSync, readFileSync } from 'node:fs';
import { resolve } from 'node:path';
import type { DescField, DescMessage } from '@bufbuild/protobuf';
import * as pb from './gen/proto/botlink/v1/botlink_pb.js';

/** One field as the spec's tables state it: name, wire type and number, and its oneof if any. */
interface SpecField {
  name: string;
  type: string;
  number: number;
  oneof?: string;
}

/**
 * The spec's bot-link tables (spec/botlink-wallet-payments.md, "Bot-link messages"), transcribed.
 * The second suite below checks this transcription against the spec file itself when it is there.
 */
const SPEC: Record<string, SpecField[]> = {
  FromBot: [
    { name: 'hello', type: 'Hello', number: 1, oneof: 'msg' },
    { name: 'ack', type: 'Ack', number: 2, oneof: 'msg' },
    { name: 'health', type: 'Health', number: 3, oneof: 'msg' },
  ],
  ToBot: [{ name: 'command', type: 'Command', number: 1 }],
  Hello: [
    { name: 'instance_id', type: 'string', number: 1 },
    { name: 'owns_updates', type: 'bool', number: 2 },
  ],
  Health: [
    { name: 'connect_failures', type: 'uint64', number: 1 },
    { name: 'api_errors', type: 'uint64', number: 2 },
    { name: 'rate_limited', type: 'uint64', number: 3 },
    { name: 'last_ok_unix', type: 'int64', number: 4 },
  ],
  Command: [
    { name: 'command_id', type: 'string', number: 1 },
    { name: 'notify', type: 'NotifyRequest', number: 2, oneof: 'payload' },
    { name: 'send_to_user', type: 'SendToUserRequest', number: 3, oneof: 'payload' },
    { name: 'send_to_channel', type: 'SendToGameChannelRequest', number: 4, oneof: 'payload' },
    { name: 'chat_gate', type: 'ChatGateCommand', number: 5, oneof: 'payload' },
    { name: 'create_invoice', type: 'CreateInvoiceCommand', number: 6, oneof: 'payload' },
  ],
  Ack: [
    { name: 'command_id', type: 'string', number: 1 },
    { name: 'delivered', type: 'bool', number: 2 },
    { name: 'error', type: 'string', number: 3 },
    { name: 'result', type: 'string', number: 4 },
  ],
  ChatGateCommand: [
    { name: 'external_id', type: 'string', number: 1 },
    { name: 'allow', type: 'bool', number: 2 },
  ],
  ChatEligibilityRequest: [{ name: 'external_id', type: 'string', number: 1 }],
  ChatEligibilityResponse: [
    { name: 'registered', type: 'bool', number: 1 },
    { name: 'eligible', type: 'bool', number: 2 },
  ],
  CreateInvoiceCommand: [
    { name: 'title', type: 'string', number: 1 },
    { name: 'description', type: 'string', number: 2 },
    { name: 'payload', type: 'string', number: 3 },
    { name: 'amount', type: 'int64', number: 4 },
  ],
  PreCheckoutRequest: [
    { name: 'order_id', type: 'string', number: 1 },
    { name: 'amount', type: 'int64', number: 2 },
    { name: 'currency', type: 'string', number: 3 },
  ],
  PreCheckoutResponse: [
    { name: 'ok', type: 'bool', number: 1 },
    { name: 'reason', type: 'string', number: 2 },
  ],
  ForwardPaymentRequest: [
    { name: 'order_id', type: 'string', number: 1 },
    { name: 'platform_payment_charge_id', type: 'string', number: 2 },
    { name: 'amount', type: 'int64', number: 3 },
    { name: 'platform_user_id', type: 'int64', number: 4 },
  ],
  ForwardPaymentResponse: [{ name: 'credited', type: 'bool', number: 1 }],
};

/**
 * Additive extensions beyond the spec's tables (allowed by its versioning rule: additive and
 * backward-compatible only): new fields appended to spec messages, and the messages they carry.
 * Every entry is listed here on purpose, so nothing is added to botlink.v1 by accident.
 */
const ADDITIVE: Record<string, SpecField[]> = {
  Health: [
    { name: 'dead_letters', type: 'uint64', number: 5 },
    { name: 'outbox_failing_rows', type: 'uint64', number: 6 },
    { name: 'outbox_oldest_failing_age_seconds', type: 'uint64', number: 7 },
    { name: 'update_conflicts', type: 'uint64', number: 8 },
    { name: 'platform_unreadable_responses', type: 'uint64', number: 9 },
    { name: 'chat_commands', type: 'repeated ChatCommandCount', number: 10 },
  ],
  ChatCommandCount: [
    { name: 'input', type: 'string', number: 1 },
    { name: 'outcome', type: 'string', number: 2 },
    { name: 'count', type: 'uint64', number: 3 },
  ],
  Command: [
    { name: 'refund_star_payment', type: 'RefundStarPaymentCommand', number: 7, oneof: 'payload' },
    { name: 'get_star_transactions', type: 'GetStarTransactionsCommand', number: 8, oneof: 'payload' },
    { name: 'forget_user', type: 'ForgetUserCommand', number: 9, oneof: 'payload' },
    { name: 'edit_star_subscription', type: 'EditStarSubscriptionCommand', number: 10, oneof: 'payload' },
  ],
  EditStarSubscriptionCommand: [
    { name: 'user_id', type: 'int64', number: 1 },
    { name: 'platform_payment_charge_id', type: 'string', number: 2 },
    { name: 'is_canceled', type: 'bool', number: 3 },
  ],
  CreateInvoiceCommand: [{ name: 'subscription_period', type: 'int64', number: 5 }],
  ForwardPaymentRequest: [
    { name: 'is_recurring', type: 'bool', number: 5 },
    { name: 'is_first_recurring', type: 'bool', number: 6 },
    { name: 'subscription_expiration_unix', type: 'int64', number: 7 },
  ],
  ForgetUserCommand: [{ name: 'user_id', type: 'int64', number: 1 }],
  RefundStarPaymentCommand: [
    { name: 'user_id', type: 'int64', number: 1 },
    { name: 'platform_payment_charge_id', type: 'string', number: 2 },
  ],
  GetStarTransactionsCommand: [
    { name: 'offset', type: 'int64', number: 1 },
    { name: 'limit', type: 'int64', number: 2 },
  ],
  StarChargesRequest: [
    { name: 'platform_user_id', type: 'int64', number: 1 },
    { name: 'limit', type: 'int32', number: 2 },
    { name: 'language', type: 'string', number: 3 },
  ],
  StarCharge: [
    { name: 'order_id', type: 'string', number: 1 },
    { name: 'platform_payment_charge_id', type: 'string', number: 2 },
    { name: 'product_title', type: 'string', number: 3 },
    { name: 'amount', type: 'int64', number: 4 },
    { name: 'paid_unix', type: 'int64', number: 5 },
    { name: 'state', type: 'string', number: 6 },
  ],
  StarChargesResponse: [{ name: 'charges', type: 'repeated StarCharge', number: 1 }],
  OpenSupportCaseRequest: [
    { name: 'platform_user_id', type: 'int64', number: 1 },
    { name: 'platform_payment_charge_id', type: 'string', number: 2 },
    { name: 'text', type: 'string', number: 3 },
    { name: 'language', type: 'string', number: 4 },
  ],
  OpenSupportCaseResponse: [{ name: 'case_id', type: 'string', number: 1 }],
  ForwardRefundRequest: [
    { name: 'order_id', type: 'string', number: 1 },
    { name: 'platform_payment_charge_id', type: 'string', number: 2 },
    { name: 'amount', type: 'int64', number: 3 },
    { name: 'platform_user_id', type: 'int64', number: 4 },
    { name: 'currency', type: 'string', number: 5 },
  ],
  ForwardRefundResponse: [{ name: 'recorded', type: 'bool', number: 1 }],
};

/** The spec's tables with the additive extensions appended: what the generated code must declare. */
const DECLARED: Record<string, SpecField[]> = Object.fromEntries(
  [...new Set([...Object.keys(SPEC), ...Object.keys(ADDITIVE)])].map((name) => [name, [...(SPEC[name] ?? []), ...(ADDITIVE[name] ?? [])]]),
);

const RPCS = [
  { name: 'Link', kind: 'bidi_streaming', input: 'FromBot', output: 'ToBot' },
  { name: 'ResolveChatEligibility', kind: 'unary', input: 'ChatEligibilityRequest', output: 'ChatEligibilityResponse' },
  { name: 'ValidatePreCheckout', kind: 'unary', input: 'PreCheckoutRequest', output: 'PreCheckoutResponse' },
  { name: 'ForwardPayment', kind: 'unary', input: 'ForwardPaymentRequest', output: 'ForwardPaymentResponse' },
  { name: 'ListStarCharges', kind: 'unary', input: 'StarChargesRequest', output: 'StarChargesResponse' },
  { name: 'OpenSupportCase', kind: 'unary', input: 'OpenSupportCaseRequest', output: 'OpenSupportCaseResponse' },
  { name: 'ForwardRefund', kind: 'unary', input: 'ForwardRefundRequest', output: 'ForwardRefundResponse' },
];

/** Protobuf scalar type numbers (google.protobuf.FieldDescriptorProto.Type) by proto name. */
const SCALAR_NAMES: Record<number, string> = { 4: 'uint64', 3: 'int64', 5: 'int32', 8: 'bool', 9: 'string' };

function typeOf(field: DescField): string {
  if (field.fieldKind === 'scalar') return SCALAR_NAMES[field.scalar] ?? `scalar#${field.scalar}`;
  if (field.fieldKind === 'message') return field.message.name;
  if (field.fieldKind === 'list' && field.listKind === 'message') return `repeated ${field.message.name}`;
  return field.fieldKind;
}

function describeMessage(message: DescMessage): SpecField[] {
  return message.fields.map((f) => ({
    name: f.name,
    type: typeOf(f),
    number: f.number,
    ...(f.oneof ? { oneof: f.oneof.name } : {}),
  }));
}

describe('botlink.v1 generated descriptors match the spec tables', () => {
  const messages = new Map(pb.file_botlink_v1_botlink.messages.map((m) => [m.name, m]));

  it('declares package botlink.v1 with exactly the spec messages and the listed additive ones', () => {
    expect(pb.file_botlink_v1_botlink.proto.package).toBe('botlink.v1');
    expect([...messages.keys()].sort()).toEqual(Object.keys(DECLARED).sort());
  });

  it("numbers every field added to a spec message after all of that message's spec fields", () => {
    for (const [name, added] of Object.entries(ADDITIVE)) {
      const highest = Math.max(0, ...(SPEC[name] ?? []).map((f) => f.number));
      for (const field of added) expect(field.number).toBeGreaterThan(highest);
    }
  });

  it.each(Object.entries(DECLARED))('%s has every field with its name, type, number and oneof', (name, fields) => {
    const message = messages.get(name);
    expect(message).toBeDefined();
    expect(describeMessage(message as DescMessage)).toEqual(fields);
  });

  it('keeps every field singular (no maps; repeated only where declared) and oneofs only where the spec has them', () => {
    for (const message of messages.values()) {
      for (const field of message.fields) {
        const declared = (DECLARED[message.name] ?? []).find((f) => f.name === field.name);
        expect(field.fieldKind === 'list' ? declared?.type.startsWith('repeated ') : ['scalar', 'message'].includes(field.fieldKind)).toBe(
          true,
        );
      }
      const oneofs = message.oneofs.map((o) => o.name);
      const expected = [...new Set((DECLARED[message.name] ?? []).flatMap((f) => (f.oneof ? [f.oneof] : [])))];
      expect(oneofs).toEqual(expected);
    }
  });

  it('serves BotLink with the four spec RPCs and the additive ones, their kinds and types', () => {
    expect(pb.BotLink.typeName).toBe('botlink.v1.BotLink');
    const methods = pb.BotLink.methods.map((m) => ({ name: m.name, kind: m.methodKind, input: m.input.name, output: m.output.name }));
    expect(methods).toEqual(RPCS);
    expect(pb.BotLink.methods.map((m) => m.localName)).toEqual([
      'link',
      'resolveChatEligibility',
      'validatePreCheckout',
      'forwardPayment',
      'listStarCharges',
      'openSupportCase',
      'forwardRefund',
    ]);
    expect(pb.file_botlink_v1_botlink.services[0]?.methods.map((m) => m.name)).toEqual(RPCS.map((r) => r.name));
  });

  it('reuses the connector.v1 request shapes for the three message commands', () => {
    const command = messages.get('Command') as DescMessage;
    const pkg = (n: string) => command.fields.find((f) => f.name === n)?.message?.typeName;
    expect(pkg('notify')).toBe('connector.v1.NotifyRequest');
    expect(pkg('send_to_user')).toBe('connector.v1.SendToUserRequest');
    expect(pkg('send_to_channel')).toBe('connector.v1.SendToGameChannelRequest');
  });
});

/** Where the spec lives in a checkout: `../shared` beside the repository, or SPEC_PATH. */
function specPath(): string | undefined {
  const candidates = [process.env['SPEC_PATH'], resolve(import.meta.dirname, '../../../../shared/spec/botlink-wallet-payments.md')];
  return candidates.find((p): p is string => p !== undefined && existsSync(p));
}

/**
 * Reads the message field definitions out of the spec's markdown: the `| Field | Type | No. |`
 * tables under a `**Name**` heading line, and the inline form "**Name**: `field` type = N; …".
 */
export function parseSpecMessages(markdown: string): Record<string, Array<{ name: string; type: string; number: number }>> {
  const out: Record<string, Array<{ name: string; type: string; number: number }>> = {};
  let current: string | undefined;
  for (const line of markdown.split('\n')) {
    const heading = /^\*\*(\w+)\*\*(.*)$/.exec(line);
    if (heading) {
      const name = heading[1] ?? '';
      current = name;
      const inline = [...(heading[2] ?? '').matchAll(/`(\w+)` \((\w+)\) = (\d+)|`(\w+)` (\w+) = (\d+)/g)];
      if (inline.length > 0) {
        out[name] = inline.map((m) => ({ name: (m[1] ?? m[4]) as string, type: (m[2] ?? m[5]) as string, number: Number(m[3] ?? m[6]) }));
      }
      continue;
    }
    const row = /^\| (\w+) \| (\w+) \| (\d+) \|/.exec(line);
    if (row && current) (out[current] ??= []).push({ name: row[1] as string, type: row[2] as string, number: Number(row[3]) });
    else if (!line.startsWith('|') && line.trim() !== '' && current && out[current]) current = undefined;
  }
  return out;
}

const spec = specPath();
if (spec) {
  describe('the transcribed tables match the spec file', () => {
    const parsed = parseSpecMessages(readFileSync(spec, 'utf8'));

    it.each(Object.keys(SPEC))('%s', (name) => {
      const fromSpec = parsed[name];
      expect(fromSpec).toBeDefined();
      expect(fromSpec).toEqual((SPEC[name] ?? []).map(({ name: n, type, number }) => ({ name: n, type, number })));
    });
  });
} else {
  process.stderr.write('botlink spec file not found beside the repository (../shared/spec): checked the transcription only\n');
}
