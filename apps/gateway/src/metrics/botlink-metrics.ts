import { Counter, Gauge, Histogram, type Registry } from 'prom-client';

/** `bot_platform_errors_total{kind}`: one value per Health delta field. */
export const PLATFORM_ERROR_KINDS = ['long_poll', 'api', 'rate_limited'] as const;
export type PlatformErrorKind = (typeof PLATFORM_ERROR_KINDS)[number];

/**
 * `botlink_commands_total{outcome}`: the hub's outcome status, except that a command whose Link
 * ended before its Ack is counted as `link_lost` (its Outcome is `error` with error `link_lost`).
 */
export const COMMAND_OUTCOMES = ['delivered', 'not_delivered', 'error', 'timeout', 'no_bot', 'link_lost'] as const;
export type CommandOutcomeLabel = (typeof COMMAND_OUTCOMES)[number];

/** `botlink_link_rejections_total{reason}`: why a bot's connection or Link never became a link. */
export const LINK_REJECTION_REASONS = ['tls_handshake', 'client_identity', 'no_hello', 'invalid_hello', 'shutting_down'] as const;
export type LinkRejectionReason = (typeof LINK_REJECTION_REASONS)[number];

/** `botlink_link_ends_total{reason}`: why an established Link ended. */
export const LINK_END_REASONS = ['stream_closed', 'replaced', 'idle_timeout', 'shutdown'] as const;
export type LinkEndReason = (typeof LINK_END_REASONS)[number];

/** `bot_chat_commands_total{input}`: the bot's chat inputs (additive Health chat_commands). */
export const CHAT_INPUTS = ['start', 'paysupport', 'privacy', 'terms', 'unknown', 'support_button', 'support_text'] as const;
export type ChatInputLabel = (typeof CHAT_INPUTS)[number];

/** `bot_chat_commands_total{outcome}`. */
export const CHAT_OUTCOMES = ['answered', 'invalid', 'unavailable', 'rate_limited', 'failed'] as const;
export type ChatOutcomeLabel = (typeof CHAT_OUTCOMES)[number];
/** `botlink_support_calls_total{rpc}`: the bot-link's support RPCs (/paysupport). */
export const SUPPORT_RPCS = ['list_star_charges', 'open_support_case'] as const;
export type SupportRpc = (typeof SUPPORT_RPCS)[number];

/**
 * `botlink_support_calls_total{outcome}`: ok; invalid_argument (refused by the gateway or the
 * backend); rate_limited (the per-user limit); case_limit (too many open cases: FailedPrecondition); unavailable; error.
 */
export const SUPPORT_CALL_OUTCOMES = ['ok', 'invalid_argument', 'rate_limited', 'case_limit', 'unavailable', 'error'] as const;
export type SupportCallOutcome = (typeof SUPPORT_CALL_OUTCOMES)[number];

/** The bot-link's metrics; every label value comes from a closed set (no ids). */
export interface BotlinkMetrics {
  platformErrors: Counter<'kind'>;
  platformLastOk: Gauge;
  deadLetters: Counter;
  updateConflicts: Counter;
  outboxFailingRows: Gauge;
  outboxOldestFailingAge: Gauge;
  platformUnreadable: Counter;
  chatCommands: Counter<'input' | 'outcome'>;
  chatCommandsRateLimited: Counter;
  connectedBots: Gauge;
  updateOwners: Gauge;
  duplicateOwners: Counter;
  commands: Counter<'kind' | 'outcome'>;
  ackLatency: Histogram<'kind'>;
  unknownAcks: Counter;
  duplicateCommands: Counter;
  linkRejections: Counter<'reason'>;
  linkEnds: Counter<'reason'>;
  pingTimeouts: Counter;
  supportCalls: Counter<'rpc' | 'outcome'>;
}

/**
 * Registers the bot-link metrics on the gateway's registry. Closed label sets are pre-created at
 * zero so `rate()` and `increase()` see a series before the first event.
 */
export function createBotlinkMetrics(registry: Registry): BotlinkMetrics {
  const registers = [registry];
  const metrics: BotlinkMetrics = {
    platformErrors: new Counter({
      name: 'bot_platform_errors_total',
      help: 'Chat-platform API failures reported by the bot in Health deltas (long_poll: transport or 5xx on the update long-poll; api: transport or 5xx on other calls; rate_limited: 429 responses).',
      labelNames: ['kind'],
      registers,
    }),
    platformLastOk: new Gauge({
      name: 'bot_platform_last_ok_unix',
      help: "Unix seconds of the bot's last successful chat-platform API response; never moves backwards (no sample until a report carries a stamp).",
      registers,
    }),
    deadLetters: new Counter({
      name: 'bot_dead_letters_total',
      help: 'Updates the bot parked in its dead-letter table (sum of the additive Health dead_letters deltas); each needs an operator.',
      registers,
    }),
    outboxFailingRows: new Gauge({
      name: 'bot_outbox_failing_rows',
      help: "Paid charges in the bots' payment outboxes whose ForwardPayment failed at least once and that still wait for a response (additive Health level outbox_failing_rows, summed over open Links; retried until answered).",
      registers,
    }),
    outboxOldestFailingAge: new Gauge({
      name: 'bot_outbox_oldest_failing_age_seconds',
      help: 'Age in seconds of the oldest of those failing outbox rows, since the payment was stored (additive Health level, the largest over open Links; 0 when none).',
      registers,
    }),
    platformUnreadable: new Counter({
      name: 'bot_platform_unreadable_responses_total',
      help: 'Chat-platform 2xx answers whose body the bot could not read as a Bot API envelope (e.g. a proxy answering 200 with HTML; sum of the additive Health deltas). They stamp liveness, so this is where they show.',
      registers,
    }),
    updateConflicts: new Counter({
      name: 'bot_platform_update_conflicts_total',
      help: "409 Conflict answers to the bot's getUpdates long poll (sum of the additive Health update_conflicts deltas): another process polls updates with the same bot token, whatever its instance_id.",
      registers,
    }),
    chatCommands: new Counter({
      name: 'bot_chat_commands_total',
      help: "The bot's chat commands (/start, /paysupport, /privacy, /terms, unknown ones, /paysupport's button presses and case texts) by input and outcome (answered; invalid: garbled or stale button data, a case text out of 1-1000 characters; unavailable: the gateway or backend did not answer; rate_limited; failed: the answer could not be sent). Sum of the additive Health chat_commands deltas.",
      labelNames: ['input', 'outcome'],
      registers,
    }),
    chatCommandsRateLimited: new Counter({
      name: 'bot_chat_commands_rate_limited_total',
      help: "Chat inputs the bot's per-user limit held back (BOT_COMMAND_RATE_LIMIT per window; the user got one 'slow down' per window, then silence).",
      registers,
    }),
    connectedBots: new Gauge({ name: 'botlink_connected_bots', help: 'Bots with an open Link stream.', registers }),
    updateOwners: new Gauge({
      name: 'botlink_update_owners',
      help: 'Open Links whose Hello said owns_updates=true; exactly one bot may own the update long poll.',
      registers,
    }),
    duplicateOwners: new Counter({
      name: 'botlink_duplicate_owners_total',
      help: 'Links opened with owns_updates=true while a live bot of another instance_id, or a live second process with the same one, already owned updates (accepted and flagged).',
      registers,
    }),
    commands: new Counter({
      name: 'botlink_commands_total',
      help: 'Commands sent through the hub, by payload kind and outcome (link_lost: the Link ended before the Ack).',
      labelNames: ['kind', 'outcome'],
      registers,
    }),
    ackLatency: new Histogram({
      name: 'botlink_ack_latency_seconds',
      help: 'Time from send to the correlated Ack, by payload kind.',
      labelNames: ['kind'],
      buckets: [0.0005, 0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10, 30],
      registers,
    }),
    unknownAcks: new Counter({
      name: 'botlink_unknown_acks_total',
      help: 'Acks whose command_id matched no in-flight command on that Link (unknown, late after a timeout, or duplicate); dropped.',
      registers,
    }),
    duplicateCommands: new Counter({
      name: 'botlink_duplicate_commands_total',
      help: 'Commands dropped unwritten because their command_id was written to a Link of this gateway before (a second copy of one command, whatever relayed it; the gateway remembers the last 65,536 ids for 5 min).',
      registers,
    }),
    linkRejections: new Counter({
      name: 'botlink_link_rejections_total',
      help: 'Bot connections, Link streams or bot-link calls refused (tls_handshake, client_identity: a CA-signed certificate without clientAuth or off BOTLINK_ALLOWED_CLIENTS, one per call; no_hello, invalid_hello, shutting_down).',
      labelNames: ['reason'],
      registers,
    }),
    linkEnds: new Counter({
      name: 'botlink_link_ends_total',
      help: 'Established Links that ended (stream_closed: the bot or the network ended it, including a failed ping; replaced; idle_timeout; shutdown).',
      labelNames: ['reason'],
      registers,
    }),
    pingTimeouts: new Counter({
      name: 'botlink_ping_timeouts_total',
      help: 'Bot-link HTTP/2 sessions destroyed because a ping went unanswered (half-open connection).',
      registers,
    }),
    supportCalls: new Counter({
      name: 'botlink_support_calls_total',
      help: "The bot-link's support RPCs (ListStarCharges, OpenSupportCase) by rpc and outcome: ok, invalid_argument (refused by the gateway's input checks or the backend), rate_limited (the per-user limit: ResourceExhausted), case_limit (too many open cases: FailedPrecondition), unavailable, error.",
      labelNames: ['rpc', 'outcome'],
      registers,
    }),
  };
  for (const kind of PLATFORM_ERROR_KINDS) metrics.platformErrors.inc({ kind }, 0);
  for (const reason of LINK_REJECTION_REASONS) metrics.linkRejections.inc({ reason }, 0);
  for (const reason of LINK_END_REASONS) metrics.linkEnds.inc({ reason }, 0);
  for (const input of CHAT_INPUTS) for (const outcome of CHAT_OUTCOMES) metrics.chatCommands.inc({ input, outcome }, 0);
  metrics.chatCommandsRateLimited.inc(0);
  for (const rpc of SUPPORT_RPCS) for (const outcome of SUPPORT_CALL_OUTCOMES) metrics.supportCalls.inc({ rpc, outcome }, 0);
  metrics.connectedBots.set(0);
  metrics.updateOwners.set(0);
  metrics.deadLetters.inc(0);
  metrics.updateConflicts.inc(0);
  // No sample until a report carries a stamp: a restarted gateway must not expose 0, an older value than the last one scraped.
  metrics.platformLastOk.remove();
  metrics.platformUnreadable.inc(0);
  metrics.outboxFailingRows.set(0);
  metrics.outboxOldestFailingAge.set(0);
  metrics.duplicateOwners.inc(0);
  metrics.unknownAcks.inc(0);
  metrics.duplicateCommands.inc(0);
  metrics.pingTimeouts.inc(0);
  return metrics;
}
