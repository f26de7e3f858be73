#!/usr/bin/env bash
# Walks through KEP-6318 on a cluster whose kubelets are half upgraded: the
# two nodes of make run NODES=2, the first with the patched kubelet and the
# gate on, the second with the kubelet of the unpatched base release (or
# another, NODE2_GATE). A DaemonSet has a Pod on each; a probe change to the
# Pod on the first node is applied without a restart, the same change to the
# Pod on the second is refused by the API server's skew guard, and kubectl
# probe changes the one and skips the other. Used by hack/run.sh; needs
# KUBECONFIG, KUBECTL, PROBE_IMAGE (the image of the node's probe target) and
# kubectl-probe on PATH. It fails when the cluster does not behave so.
set -euo pipefail

# shellcheck source=hack/lib/init.sh
source "$(dirname "${BASH_SOURCE[0]}")/../lib/init.sh"
# shellcheck source=hack/lib/walkthrough.sh
source "${ROOT}/hack/lib/walkthrough.sh"

: "${PROBE_IMAGE:?the image of the probe target of the node}"
NS=demo
k() { kep::walkthrough::kubectl -n "${NS}" "$@"; }
# pod_on NODE prints the name of the DaemonSet's Pod on NODE.
pod_on() { k get pods -l app=web --field-selector "spec.nodeName=$1" -o jsonpath='{.items[0].metadata.name}'; }
restarts() { k get pod "$1" -o jsonpath='{.status.containerStatuses[0].restartCount}'; }
period() { k get pod "$1" -o jsonpath='{.spec.containers[0].readinessProbe.periodSeconds}'; }
applied() {
  k get events --field-selector "involvedObject.name=$1,reason=ContainerProbeChanged" \
    -o jsonpath='{range .items[*]}{.message}{"\n"}{end}' | grep -qxF 'Readiness probe updated for container "app"'
}

kep::walkthrough::step "Two nodes: the first runs the patched kubelet with MutableContainerProbes on, and declares the feature; the second, by default, the base release's kubelet, which does not"
kep::walkthrough::show get nodes -o 'custom-columns=NAME:.metadata.name,KUBELET:.status.nodeInfo.kubeletVersion,DECLARED FEATURES:.status.declaredFeatures'

kep::walkthrough::step "A DaemonSet: one Pod on each node"
kep::walkthrough::kubectl create namespace "${NS}" --dry-run=client -o yaml | kep::walkthrough::kubectl apply -f - >/dev/null
k delete daemonset web --ignore-not-found --wait >/dev/null
k apply -f - <<YAML
apiVersion: apps/v1
kind: DaemonSet
metadata:
  name: web
spec:
  selector:
    matchLabels: {app: web}
  template:
    metadata:
      labels: {app: web}
    spec:
      terminationGracePeriodSeconds: 1
      containers:
      - name: app
        image: ${PROBE_IMAGE}
        imagePullPolicy: Never
        readinessProbe:
          httpGet: {path: /readyz, port: 8080}
          periodSeconds: 1
YAML
k rollout status daemonset/web --timeout=90s >/dev/null
kep::walkthrough::show -n "${NS}" get pods -o wide
first=$(pod_on kep-node)
second=$(pod_on kep-node-2)

kep::walkthrough::step "The Pod on kep-node: the change is stored and applied; the container keeps running"
kep::walkthrough::show -n "${NS}" patch pod "${first}" -p '{"spec":{"containers":[{"name":"app","readinessProbe":{"periodSeconds":3}}]}}'
kep::util::poll 60 applied "${first}" || kep::log::error_exit "the kubelet of kep-node did not apply the change within 60s"
kep::walkthrough::show -n "${NS}" events --for "pod/${first}" --types Normal
[[ "$(restarts "${first}")" == 0 ]] || kep::log::error_exit "the container of ${first} restarted"

# With NODE2_GATE=on, the second node's kubelet has the feature too.
if k get node kep-node-2 -o jsonpath='{.status.declaredFeatures}' | grep -qw MutableContainerProbes; then
  kep::walkthrough::step "The Pod on kep-node-2, whose kubelet declares the feature too: the same"
  kep::walkthrough::show -n "${NS}" patch pod "${second}" -p '{"spec":{"containers":[{"name":"app","readinessProbe":{"periodSeconds":3}}]}}'
  kep::util::poll 60 applied "${second}" || kep::log::error_exit "the kubelet of kep-node-2 did not apply the change within 60s"
  kept=5
else
  kep::walkthrough::step "The Pod on kep-node-2: the API server refuses the same change, as the node's kubelet could not apply it"
  kep::walkthrough::rejected -n "${NS}" patch pod "${second}" -p '{"spec":{"containers":[{"name":"app","readinessProbe":{"periodSeconds":3}}]}}'
  kept=1
fi

kep::walkthrough::step "kubectl probe on the DaemonSet: it changes each Pod it can, and skips any other with the API server's reason"
echo "$ kubectl probe -n ${NS} set daemonset/web --readiness --period-seconds=5"
rc=0
kubectl-probe --kubeconfig "${KUBECONFIG}" -n "${NS}" set daemonset/web --readiness --period-seconds=5 || rc=$?
echo "(exit status ${rc})"
[[ "${rc}" == 0 && "$(period "${first}")" == 5 && "$(period "${second}")" == "${kept}" ]] ||
  kep::log::error_exit "kubectl probe did not change the Pods whose kubelet has the feature, and only those, and succeed"
for pod in "${first}" "${second}"; do
  [[ "$(restarts "${pod}")" == 0 ]] || kep::log::error_exit "the container of ${pod} restarted"
done

kep::walkthrough::step "Done: each Pod whose kubelet has the feature has its new probe, and no container restarted"
