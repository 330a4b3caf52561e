#!/usr/bin/env bash
# Checks the monitoring configuration: the alert rules parse, their unit tests pass, the Prometheus
# config loads them, every Grafana panel expression parses, and the Alertmanager config is valid.
# Exits non-zero on the first failure.
# Needs Debian's prometheus (promtool) and prometheus-alertmanager (amtool), and node.
set -euo pipefail
cd "$(dirname "$0")"

for tool in promtool amtool; do
  command -v "$tool" >/dev/null || { echo "ops/check.sh: $tool not found (apt-get install prometheus prometheus-alertmanager)" >&2; exit 1; }
done

promtool check rules prometheus/alerts.yml
promtool test rules prometheus/alerts.test.yml
promtool check config prometheus/prometheus.yml
# Every Grafana panel expression is valid PromQL: checked as recording rules in a scratch file.
panels=$(mktemp --suffix=.yml)
trap 'rm -f "$panels"' EXIT
node -e '
  const fs = require("fs");
  const rules = [];
  for (const f of fs.readdirSync("grafana/dashboards").filter((n) => n.endsWith(".json"))) {
    const walk = (ps) => { for (const p of ps ?? []) { for (const t of p.targets ?? []) rules.push({ record: `panel:expr_${rules.length}`, expr: t.expr }); walk(p.panels); } };
    walk(JSON.parse(fs.readFileSync(`grafana/dashboards/${f}`, "utf8")).panels);
  }
  if (rules.length === 0) { console.error("ops/check.sh: no panel expressions found"); process.exit(1); }
  fs.writeFileSync(process.argv[1], JSON.stringify({ groups: [{ name: "panels", rules }] }));
' "$panels"
promtool check rules "$panels" >/dev/null || { promtool check rules "$panels"; echo "ops/check.sh: a Grafana panel expression does not parse" >&2; exit 1; }
# Every alert of alerts.yml with its component label; each must be in this list (checked below).
routed="BotDisconnected=botlink BotPlatformUnreachable=botlink BotRateLimitedSustained=botlink BotDeadLetters=botlink
  BotDuplicateUpdateOwners=botlink BotUpdateConflicts=botlink BotPlatformUnreadableAnswers=botlink BotOutboxPaymentsFailing=botlink
  CardPaymentStuckPending=payments ProviderErrorsSustained=payments UnmatchedPayment=payments
  UnmatchedRefundFailed=payments SupportCaseWaiting=payments ReconciliationMismatch=payments ReconciliationNotCompleting=payments BackendDown=backend BackendNotReady=backend GatewayShedding=backend NatsMessagesRejected=backend"
for alert in $(sed -n 's/^ *- alert: *//p' prometheus/alerts.yml); do
  [[ " $(echo $routed) " == *" $alert="* ]] || { echo "ops/check.sh: $alert is not in the routing check list" >&2; exit 1; }
done
# The deploy's config and the dev sandbox's (the mail catcher as smarthost, no TLS) route alike.
for config in alertmanager/alertmanager.yml alertmanager/alertmanager.dev.yml; do
  amtool check-config "$config"
  # Every alert reaches the operators' mailbox (labels as alerts.yml sets them): alert=component.
  for pair in $routed; do
    alert=${pair%%=*} component=${pair#*=}
    amtool config routes test --config.file="$config" --verify.receivers=operator-email \
      "alertname=$alert" "component=$component" >/dev/null 2>&1 || { echo "ops/check.sh: $alert does not route to operator-email in $config" >&2; exit 1; }
  done
done
grep -q '^  smtp_smarthost: mailcatcher:1025$' alertmanager/alertmanager.dev.yml || { echo "ops/check.sh: the dev Alertmanager does not send to the mail catcher" >&2; exit 1; }
echo "ops/check.sh: ok"
