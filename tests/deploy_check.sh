#!/usr/bin/env bash
# The examples in deploy/ (docs/deploy.md): every YAML file passes yamllint; the Kubernetes
# objects and the compose file hold what the docs promise (tests/deploy_check.py), and the checker
# catches each promise broken in a copy; `docker-compose config` accepts the compose file; the
# campaigns validate with the real wacamp, the Kubernetes one read through a ConfigMap's
# symlinked layout as the kubelet mounts it. Nothing is deployed: no cluster, no Docker here.
# Exits 77 (ctest: skipped) when a tool is missing; scripts/setup.sh installs them.
#   tests/deploy_check.sh WACAMP SOURCE_DIR
set -euo pipefail
wacamp=$1
source=$2
deploy=$source/deploy
for tool in yamllint docker-compose; do
    command -v "$tool" >/dev/null 2>&1 || { echo "skipped: $tool is not installed" >&2; exit 77; }
done
/usr/bin/python3 -c 'import yaml' 2>/dev/null || { echo "skipped: python3-yaml is not installed" >&2; exit 77; }
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
fail() {
    echo "deploy check: $*" >&2
    exit 1
}

yamllint --strict -c "$deploy/.yamllint" "$deploy" || fail "yamllint finds problems"
/usr/bin/python3 "$source/tests/deploy_check.py" "$deploy" || fail "the examples break a promise"

# The checker must catch each broken promise.
broken() {
    local name=$1 file=$2 expression=$3
    rm -rf "$work/copy" && cp -r "$deploy" "$work/copy"
    sed -i "$expression" "$work/copy/$file"
    cmp -s "$deploy/$file" "$work/copy/$file" && fail "$name: the edit changed nothing in $file"
    if /usr/bin/python3 "$source/tests/deploy_check.py" "$work/copy" 2>"$work/err"; then
        fail "the checker passed a copy where $name"
    fi
}
broken "the CronJob allows concurrent runs" kubernetes/cronjob.yaml 's/concurrencyPolicy: Forbid/concurrencyPolicy: Allow/'
broken "exit 1 fails the Job" kubernetes/job.yaml 's/values: \[2\]/values: [1, 2]/'
broken "the pod restarts in place" kubernetes/job.yaml 's/restartPolicy: Never/restartPolicy: OnFailure/'
broken "the log is not on the PVC" kubernetes/cronjob.yaml 's|/var/lib/wacamp/results/\$(JOB_NAME)|/tmp/$(JOB_NAME)|'
broken "a secret is missing" kubernetes/secret.example.yaml '/WACAMP_REDIS_PASSWORD/d'
broken "the runners use two ledgers" compose/campaigns/autumn.yaml 's|@postgres:5432/wacamp|@postgres:5432/other|'

(cd "$deploy/compose" && docker-compose config -q) || fail "docker-compose rejects compose/docker-compose.yml"

# The Kubernetes campaign as the kubelet mounts a ConfigMap: each key a symlink into ..data, a
# symlink to a timestamped folder.
cm=$work/configmap
stamp=..2026_01_01_00_00_00.000000000
mkdir -p "$cm/$stamp"
/usr/bin/python3 - "$deploy/kubernetes/campaign-configmap.yaml" "$cm/$stamp" <<'PY'
import sys, yaml
with open(sys.argv[1], encoding="utf-8") as f:
    data = yaml.safe_load(f)["data"]
for key, text in data.items():
    with open(f"{sys.argv[2]}/{key}", "w", encoding="utf-8") as out:
        out.write(text)
PY
ln -s "$stamp" "$cm/..data"
for key in campaign.yaml recipients.csv; do ln -s "..data/$key" "$cm/$key"; done
export WACAMP_API_KEY=deploy-check-key WACAMP_PG_PASSWORD=pg-secret-$$ WACAMP_REDIS_PASSWORD=redis-check-pw HOME=$work
# validate reads the ledger: with no PostgreSQL server here it must fail on that alone, naming the
# URL without the password; a copy with `ledger: off` must then be usable.
validates() {
    local campaign=$1 status=0
    "$wacamp" validate "$campaign" >"$work/out" 2>&1 || status=$?
    grep -qF "$WACAMP_PG_PASSWORD" "$work/out" && fail "validate $campaign shows the ledger's password"
    if [ "$status" -ne 0 ]; then
        [ "$status" -eq 2 ] && grep -Eq "ledger postgresql://[^:@]+@[^ ]+: cannot connect" "$work/out" ||
            fail "$campaign does not validate (exit $status): $(cat "$work/out")"
        sed 's|^\(  ledger:\).*|\1 off|' "$campaign" >"$campaign.off.yaml"
        "$wacamp" validate "$campaign.off.yaml" >"$work/out" 2>&1 ||
            fail "$campaign with ledger: off does not validate: $(cat "$work/out")"
        rm -f "$campaign.off.yaml"
    fi
}
validates "$cm/campaign.yaml"
mkdir "$work/compose"
cp "$deploy"/compose/campaigns/* "$work/compose/"
for campaign in "$work"/compose/*.yaml; do
    validates "$campaign"
done
echo "deploy check: yamllint, the promises (and 6 broken copies caught), docker-compose config, 3 campaigns validated"
