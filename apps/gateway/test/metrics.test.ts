import { readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { parse } from 'yaml';
import { startTestGateway } from './support/botlink-gateway.js';

const alertsPath = fileURLToPath(new URL('../../../ops/prometheus/alerts.yml', import.meta.url));

interface RuleFile {
  groups: Array<{ name: string; rules: Array<{ alert: string; expr: string }> }>;
}

describe('gateway metrics', () => {
  it('exposes every bot-link series the alerts use, with the label values they select, before any bot connects', async () => {
    const rules = (parse(readFileSync(alertsPath, 'utf8')) as RuleFile).groups.filter((g) => g.name === 'botlink').flatMap((g) => g.rules);
    expect(rules.map((r) => r.alert).sort()).toEqual([
      'BotDeadLetters',
      'BotDisconnected',
      'BotDuplicateUpdateOwners',
      'BotOutboxPaymentsFailing',
      'BotPlatformUnreachable',
      'BotPlatformUnreadableAnswers',
      'BotRateLimitedSustained',
      'BotUpdateConflicts',
    ]);
    const gw = await startTestGateway();
    try {
      const text = await gw.metrics();
      for (const { expr } of rules) {
        for (const [, name, labels] of expr.matchAll(/\b((?:bot|botlink)_[a-z_]+)(?:\{([^}]*)\})?/g)) {
          expect(text).toMatch(new RegExp(`^# TYPE ${name} `, 'm'));
          for (const [, label, value] of (labels ?? '').matchAll(/(\w+)="([^"]*)"/g)) {
            expect(text).toContain(`${name}{${label}="${value}"}`);
          }
        }
      }
      expect(text).toMatch(/^botlink_connected_bots 0$/m);
      expect(text).toMatch(/^botlink_update_owners 0$/m);
      expect(text).toMatch(/^bot_dead_letters_total 0$/m);
      expect(text).toMatch(/^bot_outbox_failing_rows 0$/m);
      expect(text).toMatch(/^bot_outbox_oldest_failing_age_seconds 0$/m);
      expect(text).toMatch(/^bot_platform_unreadable_responses_total 0$/m);
      expect(text).toMatch(/^botlink_duplicate_owners_total 0$/m);
      expect(text).toMatch(/^bot_platform_update_conflicts_total 0$/m);
      // No report yet: the liveness gauge has no sample at all (0 would be older than any real stamp).
      expect(text).toMatch(/^# TYPE bot_platform_last_ok_unix gauge$/m);
      expect(text).not.toMatch(/^bot_platform_last_ok_unix /m);
      expect(text).not.toMatch(/[{,](instance_id|command_id|peer)="/);
    } finally {
      await gw.stop();
    }
  });
});
