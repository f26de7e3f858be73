#!/usr/bin/env bash
# Walks through KEP-6318 with kubectl against a running API server that has
# MutableContainerProbes on. Used by hack/run.sh; needs KUBECONFIG and
# KUBECTL. It fails when the API server does not behave as the KEP says.
set -euo pipefail

# shellcheck source=hack/lib/walkthrough.sh
source "$(dirname "${BASH_SOURCE[0]}")/../lib/walkthrough.sh"

probes() {
  kep::walkthrough::kubectl get pod web -o jsonpath='generation={.metadata.generation}{"\n"}liveness={.spec.containers[0].livenessProbe}{"\n"}readiness={.spec.containers[0].readinessProbe}{"\n"}'
}

kep::walkthrough::step "Create a Pod with liveness and readiness probes"
kep::walkthrough::kubectl create namespace demo --dry-run=client -o yaml | kep::walkthrough::kubectl apply -f - >/dev/null
# There is no controller manager to create the default ServiceAccount.
kep::walkthrough::kubectl -n demo create serviceaccount default --dry-run=client -o yaml | kep::walkthrough::kubectl apply -f - >/dev/null
kep::walkthrough::kubectl -n demo delete pod web --ignore-not-found --wait=false >/dev/null
kep::walkthrough::kubectl -n demo apply -f - <<'YAML'
apiVersion: v1
kind: Pod
metadata:
  name: web
spec:
  containers:
  - name: web
    image: registry.k8s.io/e2e-test-images/agnhost:2.53
    args: ["netexec", "--http-port=8080"]
    livenessProbe:
      httpGet: {path: /healthz, port: 8080}
      timeoutSeconds: 1
      failureThreshold: 1
    readinessProbe:
      httpGet: {path: /healthz, port: 8080}
YAML
probes

kep::walkthrough::step "Incident: relax the liveness timeout in place (strategic merge patch)"
kep::walkthrough::show patch pod web -p '{"spec":{"containers":[{"name":"web","livenessProbe":{"timeoutSeconds":10,"failureThreshold":3}}]}}'
probes

kep::walkthrough::step "Remove the liveness probe to inspect the container (JSON patch)"
kep::walkthrough::show patch pod web --type=json -p '[{"op":"remove","path":"/spec/containers/0/livenessProbe"}]'
probes

kep::walkthrough::step "Restore it with the corrected timeout"
kep::walkthrough::show patch pod web --type=json -p '[{"op":"add","path":"/spec/containers/0/livenessProbe","value":{"httpGet":{"path":"/healthz","port":8080},"timeoutSeconds":5,"failureThreshold":3}}]'
probes

kep::walkthrough::step "ADR-0028: readiness moves from /healthz to /readyz"
kep::walkthrough::show patch pod web -p '{"spec":{"containers":[{"name":"web","readinessProbe":{"httpGet":{"path":"/readyz","port":8080}}}]}}'
probes

kep::walkthrough::step "A change that also touches an immutable field is rejected as a whole"
kep::walkthrough::rejected patch pod web -p '{"spec":{"containers":[{"name":"web","readinessProbe":{"periodSeconds":5},"workingDir":"/srv"}]}}'

kep::walkthrough::step "An invalid probe is rejected with its field path"
kep::walkthrough::rejected patch pod web -p '{"spec":{"containers":[{"name":"web","livenessProbe":{"successThreshold":2}}]}}'

kep::walkthrough::step "A terminating Pod's probes cannot change"
kep::walkthrough::kubectl patch pod web --type=merge -p '{"metadata":{"finalizers":["example.com/hold"]}}' >/dev/null
kep::walkthrough::kubectl delete pod web --wait=false
kep::walkthrough::rejected patch pod web -p '{"spec":{"containers":[{"name":"web","readinessProbe":{"periodSeconds":5}}]}}'
kep::walkthrough::kubectl patch pod web --type=merge -p '{"metadata":{"finalizers":null}}' >/dev/null

kep::walkthrough::step "Done: every change above was accepted or rejected as KEP-6318 says"
