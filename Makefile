# KEP-6318 mutable container probes: a patch series on upstream Kubernetes.
# Every target is a thin wrapper around a script in hack/.

SHELL := /usr/bin/env bash
WHAT ?=

.PHONY: checkout patches port pr test test-e2e test-integration test-node test-docs test-upstream-e2e measure-node test-series test-differential test-fuzz bench verify verify-tree update-generated build install-plugin run node-up node-down clean help

# A bare make prints the targets and the settings.
.DEFAULT_GOAL := help

help: ## Show the targets and the settings.
	@awk -F ':.*## ' '/^[a-z0-9-]+:.*## / {printf "%-18s %s\n", $$1, $$2}' $(MAKEFILE_LIST)
	@printf '\nSettings (environment variables or make NAME=value):\n'
	@sed -n 's/^#: //p' $(MAKEFILE_LIST)

# The settings, every one the harness reads (make verify checks it): upstream's
# names where upstream has the setting, KEP_ otherwise.
#: BASE             the upstream base, a folder of releases/ (default master, the pull requests; 1.38 or 1.37 for a fork at that release)
#: WHAT             what to run: make test, test-integration: packages (./pkg/...); make build: commands (cmd/...);
#:                  make verify: checks (gofmt, hygiene, ...: hack/verify-*.sh); make update-generated: steps;
#:                  make test-upstream-e2e: configurations (on off base); make test-docs: another copy of the guide;
#:                  make measure-node: sync measures a kubelet that applies probe changes in SyncPod (KEP.md)
#: KUBE_TIMEOUT     go test's timeout flag in make test, test-series, test-integration and test-e2e, as upstream's: KUBE_TIMEOUT=-timeout=45m (default -timeout=30m, integration 60m)
#: KUBE_TEST_ARGS   more go test arguments (-run TestX, -v) in make test, test-series, test-integration, test-e2e, test-node and measure-node; -fuzztime in make test-fuzz
#: FOCUS            make test-upstream-e2e: the specs to run (a Ginkgo focus regexp)
#: PARALLELISM      make test-node, make test-upstream-e2e: Ginkgo processes (default 6)
#: API_PORT         make run and every target that starts the node: the API server's port on 127.0.0.1 (default 6443)
#: NODES            make run, make node-up, make test-node: 2 adds a second node, whose kubelet NODE2_GATE says; make test-node then runs the two-node tests only (default 1)
#: NODE2_GATE       the second node's kubelet: base, the unpatched base release's (default); on or off, the patched one with MutableContainerProbes so
#: KEP_RUN_MODE     make run: control-plane for etcd and the API server only, where a node cannot run
#: KEP_RUN_EXIT     make run: 1 stops after the walkthrough
#: KEP_FORCE        make patches, make clean: 1 goes ahead where they refuse to drop patches or lose work
#: KEP_DIFF_SEED    make test-differential: the generator's seed (default 1)
#: KEP_DIFF_PAIRS   make test-differential: the number of Pod updates (default 30000)
#: KEP_NODE_TRIALS  make measure-node: trials per kind of change (default 20)
#: KEP_PLUGIN_SCALE make test-e2e: 1 also measures kubectl probe on the 500 Pods of a ReplicaSet
#: KEP_CI_SKIP_NODE .ci/run: 1 skips make run and the node targets where the machine cannot run a node, and says so

checkout: ## Rebuild _output/kubernetes: the upstream base plus the series, releases/master/patches (BASE=1.38: _output/kubernetes-1.38).
	@hack/checkout.sh

patches: ## Export the commits of _output/kubernetes into the series, releases/master/patches (BASE=1.38: releases/1.38/patches).
	@hack/export-patches.sh

port: ## Carry what changed in the series a port is made from into the port (BASE=1.38 from master, then BASE=1.37 from 1.38), and record it.
	@hack/port.sh

pr: ## Write the series as its stack of pull requests (releases/BASE/prs.md): a branch each in the tree, by you, and their texts in _output/pr/BASE; check each branch on its own.
	@hack/pr.sh

test: ## Run the project's tests and the harness's, upstream's unit tests of what _output/kubernetes changes, the differential test, the integration tests and the black-box suite (WHAT=./pkg/...: the project's tests and go test of WHAT only).
	@WHAT="$(WHAT)" hack/test.sh

test-e2e: ## Run the project's black-box suite (test/e2e) against the built kube-apiserver, etcd and kubectl.
	@hack/test-e2e.sh

test-integration: ## Run the integration tests (real kube-apiserver and etcd) of the packages _output/kubernetes changes; builds etcd.
	@WHAT="$(WHAT)" hack/test-integration.sh

test-node: ## On a real single-node cluster: the feature's e2e specs and its node e2e spec, the kubelet restarts and the kubectl plugin (test/node) with the gate on, then the skew test with the kubelet's gate off; and that the node leaves the host's other work alone; needs root on Linux (NODES=2: the two-node tests instead, on two nodes).
	@hack/test-node.sh

test-docs: ## Run the user guide, docs/changing-probes.md, on the real node: every command, and every output it shows compared; needs root on Linux.
	@WHAT="$(WHAT)" hack/test-docs.sh

test-upstream-e2e: ## Run upstream's probe, sidecar and readiness e2e specs and the feature's on the real node with the gate on, off, and on the unpatched base, and compare.
	@WHAT="$(WHAT)" hack/test-upstream-e2e.sh

measure-node: ## Measure on the real node how fast probe changes take effect (docs/performance.md).
	@WHAT="$(WHAT)" hack/test-node.sh measure

test-series: ## Check that the series bisects: each commit of _output/kubernetes passes go vet and go test of the packages it changes.
	@hack/test-series.sh

test-differential: ## Run ValidatePodUpdate and Pod Security on the same generated Pod updates in the patched and the base tree and compare them.
	@hack/test-differential.sh

test-fuzz: ## Fuzz ValidatePodUpdate with mutable probes in the patched tree for 10 minutes: no panics, no changed arguments.
	@hack/test-fuzz.sh

bench: ## Run the same benchmarks in the base and the patched tree, interleaved, print benchstat and check the performance budget.
	@hack/bench.sh

verify: ## Run the checks, hack/verify-*.sh (WHAT=<check> for some): the quick ones first, then the series, upstream's checks and generated files.
	@WHAT="$(WHAT)" hack/verify.sh

verify-tree: ## Run the checks of the tree only: upstream's generated files and verify scripts in _output/kubernetes (BASE=1.37: the port's tree).
	@hack/verify.sh --tree

update-generated: ## Regenerate upstream's generated files (API docs, OpenAPI, apply configurations, generated.proto, api/openapi-spec) inside _output/kubernetes (WHAT=codegen, protobuf, openapi-spec).
	@WHAT="$(WHAT)" hack/update-generated.sh

build: ## Build kube-apiserver, kubelet and kubectl from the patched tree, and the kubectl plugin kubectl-probe, into _output/bin (BASE=1.37: _output/bin/1.37; WHAT=cmd/kubelet for one).
	@WHAT="$(WHAT)" hack/build.sh

install-plugin: ## Install the kubectl plugin, kubectl-probe, with go install into go env GOBIN (default ~/go/bin), which must be on PATH for kubectl probe, and its completion, kubectl_complete-probe, beside it.
	@go install ./cmd/kubectl-probe
	@gobin=$$(go env GOBIN); gobin=$${gobin:-$$(go env GOPATH)/bin}; install -m 0755 cmd/kubectl-probe/kubectl_complete-probe "$$gobin/"; \
	printf '+++ installed %s/kubectl-probe and kubectl_complete-probe; kubectl probe --help says what it does\n' "$$gobin"

run: ## Start a real single-node cluster with MutableContainerProbes on, walk through changing the probes of a running container, and stay up until Ctrl-C (NODES=2: two nodes, the second without the feature, and the walkthrough of a half-upgraded cluster).
	@hack/run.sh

node-up: ## Build and start the single-node cluster (NODES=2: two nodes) in the background (KUBECONFIG=_output/node/state/kubeconfig).
	@hack/node-up.sh

node-down: ## Stop the cluster, of one node or two, and check that it left nothing behind.
	@hack/node-down.sh

clean: ## Remove _output/, unless a tree there holds work in no series (edits, unexported commits, stashes, side branches), or it holds a repository that is no base's tree.
	@hack/clean.sh
