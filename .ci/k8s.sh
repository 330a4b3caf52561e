#!/usr/bin/env bash
# The Kubernetes manifests (deploy/k8s): renders the dev and production overlays with kubectl's
# kustomize (kubectl 1.27+; this kind of machine ships it), validates every object against the
# Kubernetes API schemas (kubernetes-models: ajv code generated from the OpenAPI document) and for
# unknown fields, then runs the dev overlay with `podman kube play` against the CI images the images
# check built (localhost/wordgame/<service>:ci; K8S_IMAGE_TAG names another tag) and waits for every
# pod's readiness probe, then stops one pod of the backend, the gateway and the bot with SIGTERM:
# each must exit 0 inside its own budget. Prints each step's duration. Run as root, after
# .ci/images.sh; exits non-zero on failure.
set -euo pipefail
root="$(cd "$(dirname "$0")/.." && pwd)"
cd "$root"
source tools/node/ensure-node.sh
ensure_node >&2
command -v kubectl >/dev/null || { echo "kubectl not found: deploy/k8s renders with kubectl kustomize (kubectl 1.27+)"; exit 1; }
echo "$(kubectl version --client 2>/dev/null | head -2 | tr '\n' ' ')"
# The podman settings `npm run images` writes (runc, cgroupfs, ulimits this kind of host permits).
[ -f /etc/containers/containers.conf ] || { echo "no /etc/containers/containers.conf: run .ci/images.sh (npm run images) first"; exit 1; }
tag=${K8S_IMAGE_TAG:-ci}
for svc in backend gateway bot platform-emulator provider-emulator mailcatcher; do
  podman image exists "localhost/wordgame/$svc:$tag" || { echo "image localhost/wordgame/$svc:$tag missing: run .ci/images.sh first"; exit 1; }
done
[ -x /usr/sbin/nats-server ] || command -v nats-server >/dev/null || { echo "nats-server missing (the NATS stand-in)"; exit 1; }

t0=$(date +%s)
npx --no-install tsx tools/k8s/src/cli.ts validate
t1=$(date +%s)
npx --no-install tsx tools/k8s/src/cli.ts play "$tag"
t2=$(date +%s)
echo "durations: render + validate $((t1 - t0)) s, podman kube play $((t2 - t1)) s, total $((t2 - t0)) s"
