/** What a chat input is counted as: a command by name, a /paysupport button press, a case's text. */
export type ChatInput = 'start' | 'paysupport' | 'privacy' | 'terms' | 'unknown' | 'support_button' | 'support_text';

/**
 * How it ended: answered; invalid (garbled or stale button data, a text out of 1..1000);
 * unavailable (the gateway or backend did not answer); rate_limited; failed (the answer could not be sent).
 */
export type ChatOutcome = 'answered' | 'invalid' | 'unavailable' | 'rate_limited' | 'failed';

/** One series of the chat-command counter (labels are closed sets, never an id). */
export interface ChatCommandCount {
  input: ChatInput;
  outcome: ChatOutcome;
  count: number;
}

/**
 * Counters of the bot's chat commands since start, by input and outcome, plus the inputs the
 * per-user rate limit held back; reported in the bot's /health (`chatCommands`, `chatCommandsRateLimited`)
 * and, as deltas, in Health over the bot-link.
 */
export class ChatCommandCounters {
  private readonly counts = new Map<string, ChatCommandCount>();
  private readonly unreported = new Map<string, ChatCommandCount>();
  private limited = 0;

  record(input: ChatInput, outcome: ChatOutcome): void {
    const key = `${input}/${outcome}`;
    for (const map of [this.counts, this.unreported]) {
      const series = map.get(key) ?? { input, outcome, count: 0 };
      series.count += 1;
      map.set(key, series);
    }
    if (outcome === 'rate_limited') this.limited += 1;
  }

  /**
   * The counts since the previous take, for Health's additive `chat_commands` (the gateway adds them
   * to `bot_chat_commands_total`); a report lost with its stream undercounts, never counts twice.
   */
  take(): { input: string; outcome: string; count: bigint }[] {
    const deltas = [...this.unreported.values()].map((s) => ({ input: s.input, outcome: s.outcome, count: BigInt(s.count) }));
    this.unreported.clear();
    return deltas;
  }

  /** Inputs held back by the per-user rate limit. */
  get rateLimited(): number {
    return this.limited;
  }

  /** Every series with a count, in a stable order. */
  snapshot(): ChatCommandCount[] {
    return [...this.counts.values()]
      .map((s) => ({ ...s }))
      .sort((a, b) => a.input.localeCompare(b.input) || a.outcome.localeCompare(b.outcome));
  }
}
