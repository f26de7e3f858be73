#!/usr/bin/env bash
# Walks through KEP-6318 on real containers: a Pod on the single-node cluster
# of hack/node-up.sh, whose probes change while its container keeps running.
# Used by hack/run.sh; needs KUBECONFIG, KUBECTL and PROBE_IMAGE, the
# image of the node's probe target. It fails when the kubelet does not
# behave as the KEP says.
set -euo pipefail

# shellcheck source=hack/lib/init.sh
source "$(dirname "${BASH_SOURCE[0]}")/../lib/init.sh"
# shellcheck source=hack/lib/walkthrough.sh
source "${ROOT}/hack/lib/walkthrough.sh"

: "${PROBE_IMAGE:?the image of the probe target of the node}"
NS=demo
STATE="/api/v1/namespaces/${NS}/pods/web:8080/proxy/state"

status() {
  kep::walkthrough::kubectl -n "${NS}" get pod web -o custom-columns='NAME:.metadata.name,READY:.status.containerStatuses[0].ready,STARTED:.status.containerStatuses[0].started,RESTARTS:.status.containerStatuses[0].restartCount,CONTAINER:.status.containerStatuses[0].containerID'
}
restarts() { kep::walkthrough::kubectl -n "${NS}" get pod web -o jsonpath='{.status.containerStatuses[0].restartCount}'; }
container() { kep::walkthrough::kubectl -n "${NS}" get pod web -o jsonpath='{.status.containerStatuses[0].containerID}'; }
app_state() {
  kep::walkthrough::typed get --raw "${STATE}"
  kep::walkthrough::kubectl get --raw "${STATE}"
  echo
}
field() { kep::walkthrough::kubectl get --raw "${STATE}" | sed -n "s/.*\"$1\":\([^,}]*\).*/\1/p"; }

# until_true waits up to a minute for a shell condition.
until_true() {
  local what=$1
  shift
  kep::util::poll 60 "$@" || {
    status >&2
    kep::log::error_exit "${what} did not happen within 60s"
  }
}
running() { [[ "$(kep::walkthrough::kubectl -n "${NS}" get pod web -o jsonpath='{.status.containerStatuses[0].state.running}')" != "" ]]; }
looping() { (($(restarts) >= 2)) && running; }
event() {
  kep::walkthrough::kubectl -n "${NS}" get events --field-selector "involvedObject.name=web,reason=ContainerProbeChanged" \
    -o jsonpath='{range .items[*]}{.message}{"\n"}{end}' | grep -qxF "$1"
}
# unchanged watches the container for a while and fails if it restarted.
unchanged() {
  local id=$1 count=$2
  echo "(watching the container for 10s)"
  sleep 10
  status
  if [[ "$(container)" != "${id}" || "$(restarts)" != "${count}" ]]; then
    echo "!!! the container restarted" >&2
    exit 1
  fi
}

kep::walkthrough::step "A Pod whose liveness probe times out: /livez answers in 2s, the probe waits 1s"
kep::walkthrough::kubectl create namespace "${NS}" --dry-run=client -o yaml | kep::walkthrough::kubectl apply -f - >/dev/null
kep::walkthrough::kubectl -n "${NS}" delete pod web --ignore-not-found >/dev/null
kep::walkthrough::kubectl -n "${NS}" apply -f - <<YAML
apiVersion: v1
kind: Pod
metadata:
  name: web
spec:
  terminationGracePeriodSeconds: 1
  containers:
  - name: app
    image: ${PROBE_IMAGE}
    imagePullPolicy: Never
    args: ["-state-dir", "/state"]
    env:
    - {name: LIVEZ, value: "slow:2s"}
    volumeMounts:
    - {name: state, mountPath: /state}
    startupProbe:
      httpGet: {path: /healthz, port: 8080}
      periodSeconds: 1
    readinessProbe:
      httpGet: {path: /healthz, port: 8080}
      periodSeconds: 1
    livenessProbe:
      httpGet: {path: /livez, port: 8080}
      timeoutSeconds: 1
      periodSeconds: 1
      failureThreshold: 1
  volumes:
  - name: state
    emptyDir: {}
YAML
until_true "a liveness restart loop" looping
status

kep::walkthrough::step "Incident: remove the liveness probe in place to stop the restart loop"
kep::walkthrough::show -n "${NS}" patch pod web --type=json -p '[{"op":"remove","path":"/spec/containers/0/livenessProbe"}]'
until_true "the kubelet applying the removal" event 'Liveness probe removed for container "app"'
until_true "the container running" running
id=$(container)
count=$(restarts)
echo "Keep something in the running process's memory:"
kep::walkthrough::typed create --raw "/api/v1/namespaces/${NS}/pods/web:8080/proxy/memory?value=inspect-me" -f /dev/null
kep::walkthrough::kubectl create --raw "/api/v1/namespaces/${NS}/pods/web:8080/proxy/memory?value=inspect-me" -f /dev/null >/dev/null
instance=$(field instance)
unchanged "${id}" "${count}"
echo "The same process still has it (instance, memory):"
app_state
[[ "$(field instance)" == "${instance}" && "$(field memory)" == '"inspect-me"' ]] || {
  echo "!!! the process's memory did not survive" >&2
  exit 1
}
echo "Inspect the kept container as usual: its log, and a shell inside it:"
kep::walkthrough::show -n "${NS}" logs web --tail 1
logs=$(kep::walkthrough::kubectl -n "${NS}" logs web)
kep::walkthrough::show -n "${NS}" exec web -- ps
processes=$(kep::walkthrough::kubectl -n "${NS}" exec web -- ps)
[[ "${logs}" == *"probe-target ${instance//\"/}"* && "${processes}" == *"/probe-target"* ]] || {
  echo "!!! kubectl logs or kubectl exec did not reach the kept container" >&2
  exit 1
}

kep::walkthrough::step "Restore the liveness probe with a corrected timeout"
kep::walkthrough::show -n "${NS}" patch pod web --type=json -p '[{"op":"add","path":"/spec/containers/0/livenessProbe","value":{"httpGet":{"path":"/livez","port":8080},"timeoutSeconds":5,"periodSeconds":3}}]'
until_true "the kubelet applying the addition" event 'Liveness probe added for container "app"'
unchanged "${id}" "${count}"
echo "The probe runs again (see the livez hits), and passes:"
app_state

kep::walkthrough::step "ADR-0028: readiness moves from /healthz to /readyz; startup stays on /healthz"
kep::walkthrough::show -n "${NS}" patch pod web -p '{"spec":{"containers":[{"name":"app","readinessProbe":{"httpGet":{"path":"/readyz","port":8080}}}]}}'
until_true "the kubelet applying the change" event 'Readiness probe updated for container "app"'
kep::walkthrough::show -n "${NS}" wait --for=condition=Ready pod/web --timeout=60s
unchanged "${id}" "${count}"

kep::walkthrough::step "The kubelet recorded each change as a ContainerProbeChanged event"
kep::walkthrough::typed -n "${NS}" events --for pod/web
kep::walkthrough::kubectl -n "${NS}" events --for pod/web | grep -E 'ContainerProbeChanged|LAST SEEN'

kep::walkthrough::step "Done: the probes changed three times and the container ${id#containerd://} kept running"
