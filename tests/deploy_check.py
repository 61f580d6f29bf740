#!/usr/bin/python3
"""Checks the examples in deploy/ say what docs/deploy.md promises: the Kubernetes Job and CronJob
fail at once on exit 2 and leave other exits to backoffLimit, never run two at once, keep the
result log on the PersistentVolumeClaim, take every ${VAR} of the campaign from the Secret; the
compose file's runners share one Redis and one PostgreSQL. Prints what is wrong and exits 1.
    tests/deploy_check.py DEPLOY_DIR
"""
import glob
import os
import re
import sys

import yaml

problems = []


def problem(where, text):
    problems.append(f"{where}: {text}")


def load_kubernetes(folder):
    objects = {}
    for path in sorted(glob.glob(os.path.join(folder, "*.yaml"))):
        with open(path, encoding="utf-8") as f:
            for doc in yaml.safe_load_all(f):
                if doc:
                    objects[(doc["kind"], doc["metadata"]["name"])] = (os.path.basename(path), doc)
    return objects


def one(objects, kind):
    found = [(where, doc) for (k, _), (where, doc) in objects.items() if k == kind]
    if len(found) != 1:
        problem("deploy/kubernetes", f"expected one {kind}, found {len(found)}")
        return None, {}
    return found[0]


def variables(text):
    return set(re.findall(r"\$\{([A-Za-z_][A-Za-z0-9_]*)\}", text))


def check_job_spec(where, spec, names, campaign_vars):
    if not isinstance(spec.get("backoffLimit"), int) or spec["backoffLimit"] < 1:
        problem(where, "backoffLimit must be at least 1: `run` continues from its log, a retry is safe")
    rules = (spec.get("podFailurePolicy") or {}).get("rules", [])
    fail_rules = [r for r in rules if r.get("action") == "FailJob"]
    if len(fail_rules) != 1:
        problem(where, f"expected one FailJob rule (exit 2), found {len(fail_rules)}")
    for rule in fail_rules:
        codes = rule.get("onExitCodes") or {}
        if codes.get("operator") != "In" or codes.get("values") != [2]:
            problem(where, f"the FailJob rule must be onExitCodes In [2], is {codes}")
        if codes.get("containerName") != "wacamp":
            problem(where, "the FailJob rule must name the container wacamp")
    for rule in rules:
        if rule.get("action") == "Count" or (rule.get("action") == "Ignore" and "onExitCodes" in rule):
            problem(where, f"exit codes other than 2 must be left to backoffLimit, not {rule}")
    pod = spec["template"]["spec"]
    if pod.get("restartPolicy") != "Never":
        problem(where, "restartPolicy must be Never (podFailurePolicy needs it)")
    if pod.get("terminationGracePeriodSeconds", 30) < 15:
        problem(where, "terminationGracePeriodSeconds under 15: wacamp waits up to 10 s for answers on SIGTERM")
    containers = pod["containers"]
    if [c["name"] for c in containers] != ["wacamp"]:
        problem(where, "expected one container, named wacamp")
        return
    container = containers[0]
    args = container.get("args", [])
    if args[:1] != ["run"] or "--yes" not in args or "--results" not in args:
        problem(where, f"expected `run CAMPAIGN --results PATH --yes`, got {args}")
        return
    volumes = {v["name"]: v for v in pod.get("volumes", [])}
    mounts = {m["mountPath"]: m["name"] for m in container.get("volumeMounts", [])}

    def volume_at(path):
        best = max((p for p in mounts if path.startswith(p.rstrip("/") + "/")), key=len, default=None)
        return volumes.get(mounts[best]) if best else None

    results = args[args.index("--results") + 1]
    claim = (volume_at(results) or {}).get("persistentVolumeClaim", {}).get("claimName")
    if claim != names["pvc"]:
        problem(where, f"the result log {results} is not on the PersistentVolumeClaim {names['pvc']}")
    config = (volume_at(args[1]) or {}).get("configMap", {}).get("name")
    if config != names["configmap"]:
        problem(where, f"the campaign {args[1]} is not from the ConfigMap {names['configmap']}")
    secret_refs = [e["secretRef"]["name"] for e in container.get("envFrom", []) if "secretRef" in e]
    if secret_refs != [names["secret"]]:
        problem(where, f"the secrets must come from the Secret {names['secret']}, got {secret_refs}")
    missing = campaign_vars - names["secret_keys"] - {e["name"] for e in container.get("env", [])}
    if missing:
        problem(where, f"the campaign's ${{…}} variables {sorted(missing)} are in neither the Secret nor env")
    for var in re.findall(r"\$\(([A-Za-z_][A-Za-z0-9_]*)\)", " ".join(args)):
        if var not in {e["name"] for e in container.get("env", [])}:
            problem(where, f"args use $({var}), which env does not define")


def check_kubernetes(folder):
    objects = load_kubernetes(folder)
    _, configmap = one(objects, "ConfigMap")
    _, secret = one(objects, "Secret")
    _, pvc = one(objects, "PersistentVolumeClaim")
    if not (configmap and secret and pvc):
        return
    if pvc["spec"].get("accessModes") != ["ReadWriteOnce"]:
        problem("results PVC", "the result log's lock and fsyncs need ReadWriteOnce (a local filesystem)")
    campaign = configmap["data"].get("campaign.yaml", "")
    names = {
        "configmap": configmap["metadata"]["name"],
        "secret": secret["metadata"]["name"],
        "secret_keys": set((secret.get("stringData") or secret.get("data") or {}).keys()),
        "pvc": pvc["metadata"]["name"],
    }
    where, job = one(objects, "Job")
    if job:
        check_job_spec(where, job["spec"], names, variables(campaign))
    where, cron = one(objects, "CronJob")
    if cron:
        if cron["spec"].get("concurrencyPolicy") != "Forbid":
            problem(where, "concurrencyPolicy must be Forbid")
        check_job_spec(where, cron["spec"]["jobTemplate"]["spec"], names, variables(campaign))


def check_compose(folder):
    with open(os.path.join(folder, "docker-compose.yml"), encoding="utf-8") as f:
        compose = yaml.safe_load(f)
    services = compose["services"]
    for needed in ("redis", "postgres", "sandbox"):
        if needed not in services:
            problem("docker-compose.yml", f"no service {needed}")
    runners = [name for name, s in services.items() if (s.get("command") or [""])[0] == "run"]
    if len(runners) < 2:
        problem("docker-compose.yml", "expected at least two runners sharing the account")
    stores = set()
    for name in runners:
        service = services[name]
        path = service["command"][1]
        local = os.path.join(folder, "campaigns", os.path.basename(path))
        if not os.path.isfile(local):
            problem("docker-compose.yml", f"{name} runs {path}, which is not in campaigns/")
            continue
        with open(local, encoding="utf-8") as f:
            text = f.read()
        account = yaml.safe_load(text).get("account", {})
        stores.add((account.get("name"), account.get("ledger"), account.get("rate_store")))
        missing = variables(text) - set(service.get("environment", {}).keys())
        if missing:
            problem("docker-compose.yml", f"{name}: {sorted(missing)} not in its environment")
    if len(stores) != 1 or None in next(iter(stores), (None,)):
        problem("docker-compose.yml", f"the runners must share one account, ledger and rate_store, got {stores}")


def main():
    deploy = sys.argv[1]
    check_kubernetes(os.path.join(deploy, "kubernetes"))
    check_compose(os.path.join(deploy, "compose"))
    for text in problems:
        print(f"deploy check: {text}", file=sys.stderr)
    return 1 if problems else 0


if __name__ == "__main__":
    sys.exit(main())
