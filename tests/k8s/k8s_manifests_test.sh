#!/usr/bin/env bash
# The Kubernetes manifests, offline (no cluster here): deploy/k8s/check-manifests.mjs accepts
# every deploy/k8s/*.yaml, refuses tests/k8s/misspelt.yaml with both of its problems named,
# and the shard count agrees between the ConfigMap and the Indexed Job.
#   tests/k8s/k8s_manifests_test.sh SOURCE_DIR
set -euo pipefail
cd "$1/deploy/k8s"
fail() { echo "FAIL: $*" >&2; exit 1; }
[ -d node_modules ] || fail "deploy/k8s/node_modules is missing: scripts/setup runs npm ci there"
node check-manifests.mjs ./*.yaml || fail "the manifests above are not valid"
errors=$(mktemp /tmp/uringload-k8s-XXXXXX)
trap 'rm -f "$errors"' EXIT
if node check-manifests.mjs ../../tests/k8s/misspelt.yaml 2>"$errors"; then
  fail "a misspelt manifest passed the check"
fi
grep -q "containers\[0\].comand: no such field in V1Container" "$errors" ||
  fail "the misspelt field was not named: $(cat "$errors")"
grep -q "parallelism must be integer" "$errors" ||
  fail "the type error was not named: $(cat "$errors")"
shards=$(sed -n 's/^ *SHARDS: "\([0-9]*\)"$/\1/p' uringload-config.yaml)
for field in completions parallelism; do
  value=$(sed -n "s/^  $field: \([0-9]*\).*/\1/p" uringload-shards.yaml)
  [ "$value" = "$shards" ] || fail "$field $value in uringload-shards.yaml, SHARDS $shards in the ConfigMap"
done
echo "k8s manifests: ok"
