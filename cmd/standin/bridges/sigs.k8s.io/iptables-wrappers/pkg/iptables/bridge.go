//go:build ignore

// Package iptables is the part of sigs.k8s.io/iptables-wrappers' API that
// the 1.38 kubelet uses (pkg/kubelet/kubelet_network_linux.go), over
// v1.37.2's pkg/util/iptables, which the stand-in holds as
// internal/iptables. Written by the KEP-6318 harness (cmd/standin), not
// upstream's code: 1.38 passes a context to each call and chooses the
// iptables binaries with a Mode, where v1.37.2 takes a stop channel and runs
// the iptables that is installed.
package iptables

import (
	"context"
	"time"

	v1 "k8s.io/api/core/v1"

	legacy "sigs.k8s.io/iptables-wrappers/internal/iptables"
)

type (
	Table        = legacy.Table
	Chain        = legacy.Chain
	RulePosition = legacy.RulePosition
	Protocol     = legacy.Protocol
)

const (
	TableNAT    = legacy.TableNAT
	TableFilter = legacy.TableFilter
	TableMangle = legacy.TableMangle

	ChainInput  = legacy.ChainInput
	ChainOutput = legacy.ChainOutput

	Prepend = legacy.Prepend
	Append  = legacy.Append
)

// Mode says which iptables binaries a client runs.
type Mode int

// UseInstalledMode runs the iptables that is installed, as v1.37.2 does.
const UseInstalledMode Mode = 0

// Interface is what the kubelet calls on a client.
type Interface interface {
	EnsureChain(ctx context.Context, table Table, chain Chain) (bool, error)
	EnsureRule(ctx context.Context, position RulePosition, table Table, chain Chain, args ...string) (bool, error)
	// Monitor returns when ctx is done.
	Monitor(ctx context.Context, canary Chain, tables []Table, reloadFunc func(), interval time.Duration)
	IsIPv6() bool
	Protocol() Protocol
}

// NewBestEffort returns a client for each IP family that iptables supports
// on this host.
func NewBestEffort(ctx context.Context, mode Mode) map[v1.IPFamily]Interface {
	clients := map[v1.IPFamily]Interface{}
	for family, c := range legacy.NewBestEffort() {
		clients[family] = client{c}
	}
	return clients
}

type client struct{ legacy.Interface }

func (c client) EnsureChain(_ context.Context, table Table, chain Chain) (bool, error) {
	return c.Interface.EnsureChain(table, chain)
}

func (c client) EnsureRule(_ context.Context, position RulePosition, table Table, chain Chain, args ...string) (bool, error) {
	return c.Interface.EnsureRule(position, table, chain, args...)
}

func (c client) Monitor(ctx context.Context, canary Chain, tables []Table, reloadFunc func(), interval time.Duration) {
	c.Interface.Monitor(canary, tables, reloadFunc, interval, ctx.Done())
}
