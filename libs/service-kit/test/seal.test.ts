import fc from 'fast-check';
import { MessageSeal, SEAL_HEADER_BYTES, SEAL_REJECTIONS, SEAL_VERSION, SEAL_WINDOW_MS, sealKey } from '../src/index.js';

const SECRET = 'test-gateway-internal-token-0123456789abcdef';
const START = Date.parse('2031-03-01T12:00:00Z');

/** A sender and a receiver sharing one key, each on its own clock (ms, set by the test). */
function pair(purpose = 'botlink-commands', secret = SECRET) {
  const clocks = { sender: START, receiver: START };
  const sender = new MessageSeal({ key: sealKey(SECRET, purpose), now: () => clocks.sender });
  const receiver = new MessageSeal({ key: sealKey(secret, purpose), now: () => clocks.receiver });
  return { sender, receiver, clocks };
}

const subjectArb = fc.stringMatching(/^[a-z0-9_-]{1,12}(\.[a-z0-9_*>-]{1,12}){0,5}$/);
const payloadArb = fc.uint8Array({ maxLength: 2_048 });
const bindArb = fc.uint8Array({ maxLength: 64 });

describe('MessageSeal', () => {
  it('opens what it sealed: same payload, subject and binding, within the window either way', () => {
    fc.assert(
      fc.property(
        subjectArb,
        payloadArb,
        bindArb,
        fc.integer({ min: -SEAL_WINDOW_MS, max: SEAL_WINDOW_MS }),
        (subject, payload, bind, skew) => {
          const { sender, receiver, clocks } = pair();
          clocks.receiver = START + skew;
          const { bytes, nonce } = sender.seal(subject, payload, bind);
          expect(bytes.byteLength).toBe(SEAL_HEADER_BYTES + payload.byteLength);
          const opened = receiver.open(subject, bytes, bind);
          expect(opened).toEqual({ ok: true, payload, nonce, sentAt: START });
        },
      ),
    );
  });

  it('refuses any single changed byte, naming why; never accepts it', () => {
    fc.assert(
      fc.property(subjectArb, payloadArb, bindArb, fc.nat(), fc.integer({ min: 1, max: 255 }), (subject, payload, bind, at, flip) => {
        const { sender, receiver } = pair();
        const { bytes } = sender.seal(subject, payload, bind);
        const i = at % bytes.byteLength;
        const tampered = bytes.slice();
        tampered[i] = (tampered[i] as number) ^ flip;
        const opened = receiver.open(subject, tampered, bind);
        // The version byte is checked first; a changed sent-at, nonce, MAC or payload fails the MAC.
        expect(opened).toEqual({ ok: false, reason: i === 0 ? 'version' : 'bad_mac' });
      }),
    );
  });

  it('binds the subject and the binding: another subject, another binding or another key is bad_mac', () => {
    fc.assert(
      fc.property(subjectArb, subjectArb, payloadArb, bindArb, bindArb, (subject, other, payload, bind, otherBind) => {
        fc.pre(subject !== other);
        const { sender, receiver } = pair();
        const { bytes } = sender.seal(subject, payload, bind);
        expect(receiver.open(other, bytes, bind)).toEqual({ ok: false, reason: 'bad_mac' });
        if (Buffer.compare(Buffer.from(bind), Buffer.from(otherBind)) !== 0)
          expect(receiver.open(subject, bytes, otherBind)).toEqual({ ok: false, reason: 'bad_mac' });
        expect(pair('botlink-replies').receiver.open(subject, bytes, bind)).toEqual({ ok: false, reason: 'bad_mac' });
        expect(pair('botlink-commands', 'another-secret-0123456789abcdef0123').receiver.open(subject, bytes, bind)).toEqual({
          ok: false,
          reason: 'bad_mac',
        });
      }),
    );
  });

  it('refuses a truncated envelope: malformed before the MAC ends, bad_mac after', () => {
    fc.assert(
      fc.property(subjectArb, fc.uint8Array({ minLength: 1, maxLength: 512 }), fc.nat(), (subject, payload, cut) => {
        const { sender, receiver } = pair();
        const { bytes } = sender.seal(subject, payload);
        const length = cut % bytes.byteLength;
        expect(receiver.open(subject, bytes.subarray(0, length))).toEqual({
          ok: false,
          reason: length < SEAL_HEADER_BYTES ? 'malformed' : 'bad_mac',
        });
      }),
    );
  });

  it('never accepts garbage bytes', () => {
    fc.assert(
      fc.property(subjectArb, fc.uint8Array({ maxLength: 1_024 }), (subject, garbage) => {
        const opened = pair().receiver.open(subject, garbage);
        expect(opened.ok).toBe(false);
        if (!opened.ok) expect(SEAL_REJECTIONS).toContain(opened.reason);
      }),
    );
  });

  it('refuses a copy sent more than the window ago (stale) or ahead (future), checked after the MAC', () => {
    const { sender, receiver, clocks } = pair();
    const old = sender.seal('a.b', new Uint8Array([1]));
    clocks.sender = START + 2 * SEAL_WINDOW_MS;
    const ahead = sender.seal('a.b', new Uint8Array([2]));
    clocks.receiver = START + SEAL_WINDOW_MS - 1;
    expect(receiver.open('a.b', ahead.bytes)).toEqual({ ok: false, reason: 'future' });
    clocks.receiver = START + SEAL_WINDOW_MS + 1;
    expect(receiver.open('a.b', old.bytes)).toEqual({ ok: false, reason: 'stale' });
    // A forged envelope with a fresh time is a bad MAC, not fresh.
    const forged = new MessageSeal({ key: sealKey('not-the-secret-0123456789abcdef0123', 'botlink-commands'), now: () => clocks.receiver });
    expect(receiver.open('a.b', forged.seal('a.b', new Uint8Array([3])).bytes)).toEqual({ ok: false, reason: 'bad_mac' });
  });

  it('refuses a replay within the window, and the copy stays refused after its nonce is forgotten', () => {
    const { sender, receiver, clocks } = pair();
    const first = sender.seal('a.b', new Uint8Array([1]));
    expect(receiver.open('a.b', first.bytes).ok).toBe(true);
    expect(receiver.open('a.b', first.bytes)).toEqual({ ok: false, reason: 'replay' });
    clocks.receiver = START + SEAL_WINDOW_MS;
    expect(receiver.open('a.b', first.bytes)).toEqual({ ok: false, reason: 'replay' });
    // Past the window the nonce is dropped and the copy is stale, even if the clock steps back later.
    clocks.sender = clocks.receiver = START + SEAL_WINDOW_MS + 1;
    expect(receiver.open('a.b', sender.seal('a.b', new Uint8Array([2])).bytes).ok).toBe(true);
    expect(receiver.remembered).toBe(1);
    clocks.receiver = START;
    expect(receiver.open('a.b', first.bytes)).toEqual({ ok: false, reason: 'stale' });
  });

  it('refuses an envelope of another version and an oversize one before computing anything else', () => {
    const { sender, receiver } = pair();
    const { bytes } = sender.seal('a.b', new Uint8Array([1, 2, 3]));
    const v2 = bytes.slice();
    v2[0] = SEAL_VERSION + 1;
    expect(receiver.open('a.b', v2)).toEqual({ ok: false, reason: 'version' });
    const small = new MessageSeal({ key: sealKey(SECRET, 'botlink-commands'), maxPayloadBytes: 2, now: () => START });
    expect(small.open('a.b', bytes)).toEqual({ ok: false, reason: 'oversize' });
    expect(() => small.seal('a.b', new Uint8Array(3))).toThrow(RangeError);
  });
});
