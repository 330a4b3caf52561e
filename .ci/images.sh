#!/usr/bin/env bash
# CI's deploy test: the compose stack run by a real compose implementation, as docs/operating/deploy.md's "Deploy
# with compose" section tells an operator. Compose: Debian's docker-compose (1.29) against podman's
# Docker-compatible API (tools/images/podman-api.sh; docs/operating/deploy.md says why not podman-compose), with
# the dnsname CNI plugin so that service names resolve on the project network.
#  1. `npm run images -- --base debian --env-file …` (podman settings, the debootstrap base, every
#     image from the one Dockerfile with local postgres/nats/prometheus/alertmanager, the dev-only
#     package check, sizes).
#  2. The operator's own certificates (the deploy page's openssl commands) and secrets (fresh random
#     values in an env file like the deploy page's .env; the dev profile adds the emulators and the mail
#     catcher the flows need), the first operator with `docker-compose run --rm backend
#     operator-create`, `up -d`, every container healthy.
#  3. The deploy defaults as the engine applied them (every built service read-only, /app unwritable
#     by its user, only the gateways published beyond 127.0.0.1), then the flows (.ci/smoke.mjs): bot
#     linked, stars and card purchases credited, the wallet page, operator API and console sign-in, a refund.
#  4. A crash: the backend's and the gateway's processes are killed; each comes back healthy by its
#     restart policy and the gateway answers /readyz again. Then `stop` (every container exits 0 on
#     SIGTERM) and `down -v`.
#  5. The scale profile the same way (NATS with NKEY users, gateway and gateway-2, two backends):
#     the flows through gateway 1, gateway-2 ready, then the rolling deploy under load
#     (.ci/rolling.mjs: each backend, then each gateway replaced; no request may fail), then down.
# Prints the durations of base+images, compose up, flows and down. Run as root; exits non-zero on failure.
set -euo pipefail
root="$(cd "$(dirname "$0")/.." && pwd)"
cd "$root"
source tools/node/ensure-node.sh
ensure_node >&2
say() { printf '[compose-ci %s] %s\n' "$(date +%H:%M:%S)" "$*"; }
T=$(date +%s)
lap() { local now; now=$(date +%s); durations+=("$1 $((now - T)) s"); T=$now; }
durations=()

need=()
command -v docker-compose >/dev/null || need+=(docker-compose)
[ -x /usr/lib/cni/dnsname ] || need+=(golang-github-containernetworking-plugin-dnsname)
if [ ${#need[@]} -gt 0 ]; then
  apt-get update -qq && DEBIAN_FRONTEND=noninteractive apt-get install -y -qq --no-install-recommends "${need[@]}" >/dev/null
fi
say "$(docker-compose version --short 2>/dev/null | head -1 | sed 's/^/docker-compose /'), $(podman --version)"

work=.data/ci
project=wordgame-ci
envf=$work/compose.env
rm -rf "$work" && mkdir -p "$work"
chmod 0700 "$work"

# 1. Images, as the deploy page's first step (CI cannot reach Docker Hub: the Debian base and local infrastructure images).
bash tools/images/images.sh --base debian --tag ci --env-file "$envf"
lap "base+images"

# The compose tool's engine: podman's API on a socket of our own (and the health ticker: no systemd here).
sock=/run/wordgame-ci/podman.sock
eval "$(bash tools/images/podman-api.sh start "$sock")"
export DOCKER_HOST
dc() { docker-compose --env-file "$envf" "$@"; }
cleanup() {
  dc down -v -t 5 >/dev/null 2>&1 || true
  bash tools/images/podman-api.sh stop "$sock" || true
}
trap cleanup EXIT

# 2. Certificates as the deploy page makes them (P-256, the CA key outside every container).
ca=$work/ca
mkdir -p "$ca"
(
  cd "$ca" && umask 077
  openssl req -x509 -newkey ec -pkeyopt ec_paramgen_curve:P-256 -nodes -days 3650 -keyout ca.key -out ca.crt \
    -subj "/O=wordgame/CN=wordgame bot-link CA" -addext basicConstraints=critical,CA:TRUE -addext keyUsage=critical,keyCertSign,cRLSign 2>/dev/null
  openssl req -newkey ec -pkeyopt ec_paramgen_curve:P-256 -nodes -keyout gateway.key -out gateway.csr -subj "/O=wordgame/CN=gateway" 2>/dev/null
  printf '%s\n' basicConstraints=critical,CA:FALSE keyUsage=critical,digitalSignature,keyAgreement \
    extendedKeyUsage=serverAuth subjectAltName=DNS:gateway,DNS:botlink.example.org >gateway.ext
  openssl x509 -req -in gateway.csr -CA ca.crt -CAkey ca.key -CAcreateserial -days 825 -out gateway.crt -extfile gateway.ext 2>/dev/null
  openssl req -newkey ec -pkeyopt ec_paramgen_curve:P-256 -nodes -keyout bot.key -out bot.csr -subj "/O=wordgame/CN=bot-ci-1" 2>/dev/null
  printf '%s\n' basicConstraints=critical,CA:FALSE keyUsage=critical,digitalSignature,keyAgreement extendedKeyUsage=clientAuth >bot.ext
  openssl x509 -req -in bot.csr -CA ca.crt -CAkey ca.key -CAcreateserial -days 825 -out bot.crt -extfile bot.ext 2>/dev/null
  openssl verify -CAfile ca.crt gateway.crt bot.crt >/dev/null
)
for svc in gateway bot; do
  rm -rf ".deploy/certs/$svc"
  install -d -m 0755 ".deploy/certs/$svc"
  install -m 0644 "$ca/ca.crt" ".deploy/certs/$svc/ca.crt"
  install -m 0644 "$ca/$svc.crt" ".deploy/certs/$svc/tls.crt"
  install -m 0640 -o root -g 10001 "$ca/$svc.key" ".deploy/certs/$svc/tls.key"
done

# Secrets and settings: the deploy page's .env lines with fresh values, the dev profile's emulators and mail catcher, free host ports.
# A free port below the kernel's ephemeral range (ip_local_port_range): a port from that range may be
# free now and be taken by an outgoing connection's local port before compose publishes it minutes later.
free_port() {
  node -e '
    const net = require("net");
    const low = Number(require("fs").readFileSync("/proc/sys/net/ipv4/ip_local_port_range", "utf8").trim().split(/\s+/)[0]);
    const top = Math.min(low, 32768) - 1;
    const tryOne = (left) => {
      const port = 20000 + Math.floor(Math.random() * (top - 20000));
      const s = net.createServer().once("error", () => (left > 0 ? tryOne(left - 1) : process.exit(1)));
      s.listen(port, "0.0.0.0", () => { console.log(port); s.close(); });
    };
    tryOne(50);'
}
declare -A port
for p in GATEWAY_HTTP GATEWAY_BOTLINK GATEWAY_2_HTTP GATEWAY_2_BOTLINK PLATFORM_EMULATOR PROVIDER_EMULATOR MAILCATCHER PROMETHEUS ALERTMANAGER; do
  until [ -n "${port[$p]:-}" ] && ! printf ' %s ' "${taken:-}" | grep -q " ${port[$p]} "; do port[$p]=$(free_port); done
  taken="${taken:-} ${port[$p]}"
done
install -m 0600 /dev/null "$work/alertmanager_smtp_password" && printf '%s' "$(openssl rand -hex 12)" >"$work/alertmanager_smtp_password"
bot_token="$((RANDOM + 10000)):$(openssl rand -hex 16)"
shop_key=$(openssl rand -hex 12)
vk_shop_key=$(openssl rand -hex 12)
write_env() { # extra lines…
  {
    cat <<ENV
COMPOSE_PROJECT_NAME=$project
CERTS_DIR=./.deploy/certs
POSTGRES_PASSWORD=$(openssl rand -hex 24)
BACKEND_SERVICE_TOKEN=$(openssl rand -hex 32)
GATEWAY_INTERNAL_TOKEN=$(openssl rand -hex 32)
PLATFORM_BOT_TOKEN=$bot_token
BOTLINK_ALLOWED_CLIENTS=bot-ci-1
SMTP_URL=smtp://mailcatcher:1025
PRIVACY_POLICY_URL=https://wordgame.example/legal/privacy
TERMS_OF_SERVICE_URL=https://wordgame.example/legal/terms
PUBLIC_BASE_URL=http://127.0.0.1:${port[GATEWAY_HTTP]}
ALERTMANAGER_SMTP_PASSWORD_FILE=./$work/alertmanager_smtp_password
ALERTMANAGER_CONFIG=alertmanager.dev.yml
PLATFORM_API_ROOT=http://platform-emulator:8081
BACKEND_YOOKASSA_API_URL=http://provider-emulator:8082/v3
BACKEND_YOOKASSA_SHOPS=direct:ci-shop:$shop_key:test,vk:ci-vk-shop:$vk_shop_key:test
PROVIDER_EMULATOR_SHOPS=ci-shop:$shop_key:test,ci-vk-shop:$vk_shop_key:test
WORDGAME_TAG=ci
ENV
    for p in "${!port[@]}"; do echo "${p}_PUBLISH=${port[$p]}"; done
    grep -E '^(POSTGRES|NATS|PROMETHEUS|ALERTMANAGER)_IMAGE=' "$work/images.env"
    printf '%s\n' "$@"
  } >"$envf"
  chmod 0600 "$envf"
}
cp "$envf" "$work/images.env"

healthy() { # waits until every container of the project is running and (where it has a check) healthy
  local until=$(($(date +%s) + ${1:-180})) bad
  while :; do
    bad=$(podman ps -a --filter "label=com.docker.compose.project=$project" --format '{{.Names}} {{.Status}}' | grep -v -E 'Up .*\(healthy\)$|Up [^(]*$' || true)
    [ -z "$bad" ] && return 0
    [ "$(date +%s)" -gt "$until" ] && { echo "not healthy: $bad"; return 1; }
    sleep 2
  done
}
logs_on_failure() {
  say "FAILED: the last log lines of every container"
  for c in $(podman ps -a --filter "label=com.docker.compose.project=$project" --format '{{.Names}}'); do
    echo "--- $c"
    podman logs --tail 25 "$c" 2>&1 | tail -25
  done
}

operator_login=ci-operator
operator_password=$(openssl rand -hex 16)
smoke() { # gateway port
  SMOKE_COMPOSE="docker-compose --env-file $envf" SMOKE_GATEWAY="http://127.0.0.1:$1" \
    SMOKE_PLATFORM="http://127.0.0.1:${port[PLATFORM_EMULATOR]}" SMOKE_PROVIDER="http://127.0.0.1:${port[PROVIDER_EMULATOR]}" \
    SMOKE_MAIL="http://127.0.0.1:${port[MAILCATCHER]}" SMOKE_BOT_TOKEN="$bot_token" \
    SMOKE_OPERATOR_LOGIN=$operator_login SMOKE_OPERATOR_PASSWORD="$operator_password" node .ci/smoke.mjs
}
# The deploy page's step 5: migrations, the first operator, the stack. (Functions called in `||` lists
# run without set -e: each step is chained.)
bring_up() { # extra `up` arguments…
  dc run --rm backend migrate &&
    OPERATOR_PASSWORD=$operator_password dc run --rm -e OPERATOR_PASSWORD backend operator-create "$operator_login" viewer,refunder,catalog_editor,moderator &&
    dc up -d "$@" && healthy 240 && dc ps
}
crash_and_recover() { # service
  local c pid restarts
  c=$(podman ps --filter "label=com.docker.compose.project=$project" --filter "label=com.docker.compose.service=$1" --format '{{.Names}}' | head -1)
  pid=$(podman inspect --format '{{.State.Pid}}' "$c") && kill -9 "$pid" || return 1
  say "$1: killed its process ($c, pid $pid)"
  sleep 3
  healthy 120 || return 1
  restarts=$(podman inspect --format '{{.RestartCount}}' "$c") || return 1
  [ "$restarts" -ge 1 ] || { echo "$c did not restart (RestartCount $restarts)"; return 1; }
  say "$1: back and healthy by its restart policy (RestartCount $restarts)"
}
# The deploy defaults (docs/security.md, "Deploy defaults") as the engine applied them: each built
# service's container has a read-only root, its code in /app is unwritable by its user (nothing there
# but /app/.data is writable for uid 10001), and only the gateways publish beyond 127.0.0.1.
deploy_defaults() {
  local c svc bad=0 ro writable published
  for c in $(podman ps --filter "label=com.docker.compose.project=$project" --format '{{.Names}}'); do
    svc=$(podman inspect --format '{{index .Config.Labels "com.docker.compose.service"}}' "$c")
    case "$svc" in backend | gateway | gateway-2 | bot | platform-emulator | provider-emulator | mailcatcher) ;; *) continue ;; esac
    ro=$(podman inspect --format '{{.HostConfig.ReadonlyRootfs}}' "$c")
    [ "$ro" = true ] || { echo "$c: root file system not read-only ($ro)"; bad=1; }
    if podman exec "$c" node -e "require('fs').writeFileSync('/app/main.js', '')" 2>/dev/null; then echo "$c: /app/main.js could be written"; bad=1; fi
    writable=$(podman exec "$c" find /app -path /app/.data -prune -o -writable -print 2>/dev/null | head -5)
    [ -z "$writable" ] || { echo "$c: writable by its user: $writable"; bad=1; }
    published=$(podman port "$c" 2>/dev/null | awk '{print $3}' | tr '\n' ' ')
    case "$svc" in
      gateway | gateway-2) ;;
      *) if printf '%s\n' $published | grep -v -q -E '^$|^127\.0\.0\.1:'; then echo "$c: published beyond loopback: $published"; bad=1; fi ;;
    esac
    say "$svc: read-only root, /app unwritable${published:+, published on $published}"
  done
  return "$bad"
}
# One application service's containers stopped as an orchestrator stops them (podman stop: SIGTERM,
# SIGKILL after 30 s, no restart by the restart policy). podman 4.3 has lost a stop's SIGTERM (the
# container logged nothing and was killed at the timeout: 137, containers/podman#18452), so while
# the stop waits, SIGTERM is sent again when the service has not said "stopping" within 5 s (a lost
# signal, not a slow stop: a service that said it is stopping gets no second signal).
stop_service() { # service
  local c before n waited stopper
  for c in $(podman ps --filter "label=com.docker.compose.project=$project" --filter "label=com.docker.compose.service=$1" --format '{{.Names}}'); do
    before=$(podman logs "$c" 2>&1 | grep -c '"msg":"stopping"' || true)
    podman stop -t 30 "$c" >/dev/null &
    stopper=$!
    for n in 1 2 3; do
      waited=0
      while [ "$waited" -lt 10 ]; do
        [ "$(podman logs "$c" 2>&1 | grep -c '"msg":"stopping"' || true)" -gt "$before" ] && break 2
        [ "$(podman inspect --format '{{.State.Running}}' "$c" 2>/dev/null)" = true ] || break 2
        sleep 0.5
        waited=$((waited + 1))
      done
      say "$c: no \"stopping\" 5 s into its stop (a lost SIGTERM, $n); sending SIGTERM again"
      podman kill --signal TERM "$c" >/dev/null 2>&1 || true
    done
    wait "$stopper" || { echo "podman stop $c failed"; return 1; }
  done
}
stop_clean() { # gateway services…
  local codes
  # The application first: nothing in depends_on ties them to NATS, and a backend or gateway whose
  # NATS is already gone overran its 10 s graceful stop (exit 1) waiting on the connection's drain.
  stop_service bot || return 1
  # The gateways one at a time: podman 4.3 stopping two containers in one call has recorded 137 for
  # both after each had logged its clean stop in 3 s, most likely podman's stop race (containers/podman#18452).
  local gw
  for gw in "$@"; do stop_service "$gw" || return 1; done
  stop_service backend || return 1
  dc stop -t 20 || return 1
  codes=$(podman ps -a --filter "label=com.docker.compose.project=$project" --format '{{.Names}}={{.ExitCode}}' | sort | tr '\n' ' ')
  say "exit codes after SIGTERM: $codes"
  if echo "$codes" | tr ' ' '\n' | grep -v -E '=0$|^$' | grep -q .; then echo "a container did not exit 0 on SIGTERM"; return 1; fi
  dc down -v -t 5
}

# --- The default stack (and the dev profile's emulators and mail catcher).
write_env COMPOSE_PROFILES=dev
say "compose up (default services and the dev profile)"
bring_up || { logs_on_failure; exit 1; }
lap "compose up"
deploy_defaults || { logs_on_failure; exit 1; }
smoke "${port[GATEWAY_HTTP]}" || { logs_on_failure; exit 1; }
crash_and_recover backend || { logs_on_failure; exit 1; }
crash_and_recover gateway || { logs_on_failure; exit 1; }
code=$(node -e "fetch('http://127.0.0.1:${port[GATEWAY_HTTP]}/readyz').then((r) => console.log(r.status), () => console.log(0))")
[ "$code" = 200 ] || { echo "gateway /readyz $code after the crashes"; logs_on_failure; exit 1; }
lap "flows"
stop_clean gateway || { logs_on_failure; exit 1; }
lap "down"

# --- The scale profile: NATS (NKEY users from npm run nats-keys), gateway and gateway-2, two backends.
keys=$(npx --no-install tsx tools/devstack/src/nats-keys-cli.ts)
mapfile -t key_lines < <(printf '%s\n' "$keys" | grep -E '^NATS_[A-Z_]+=')
write_env COMPOSE_PROFILES=dev,scale NATS_URL=nats://nats:4222 GATEWAY_INTERNAL_URL=http://gateway:8444,http://gateway-2:8444 \
  GATEWAY_DRAIN_DELAY_MS=3000 "${key_lines[@]}"
say "compose up (scale profile, --scale backend=2)"
bring_up --scale backend=2 || { logs_on_failure; exit 1; }
lap "scale: compose up"
smoke "${port[GATEWAY_HTTP]}" || { logs_on_failure; exit 1; }
ROLLING_COMPOSE="docker-compose --env-file $envf" ROLLING_PROJECT=$project \
  ROLLING_GATEWAYS="http://127.0.0.1:${port[GATEWAY_HTTP]},http://127.0.0.1:${port[GATEWAY_2_HTTP]}" \
  node .ci/rolling.mjs || { logs_on_failure; exit 1; }
lap "scale: flows and rolling deploy"
stop_clean gateway gateway-2 || { logs_on_failure; exit 1; }
lap "scale: down"
trap - EXIT
bash tools/images/podman-api.sh stop "$sock"
say "durations: ${durations[*]}"
