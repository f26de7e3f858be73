//go:build ignore

// A bridge from v1.37.2's test/utils/ktesting to 1.38's k8s.io/ktesting,
// written by the KEP-6318 harness (cmd/standin): 1.38's callers use two
// methods of TContext that v1.37.2 does not have.

package ktesting

import "time"

// WithDeadline is WithTimeout with the time that is left until deadline
// (k8s.io/client-go/ktesting calls it).
func (tCtx TContext) WithDeadline(deadline time.Time, timeoutCause string) TContext {
	return tCtx.WithTimeout(time.Until(deadline), timeoutCause)
}

// CancelBecause is Cancel with an error as its cause (the test API server of
// cmd/kube-apiserver/app/testing calls it). The context's cause is then an
// error with the same message, equivalent to context.Canceled, as Cancel
// makes it: v1.37.2's context records a message, not an error.
func (tCtx TContext) CancelBecause(cause error) {
	message := ""
	if cause != nil {
		message = cause.Error()
	}
	tCtx.Cancel(message)
}
