//go:build ignore

// A bridge from v1.37.2's test/utils/ktesting to 1.38's k8s.io/ktesting,
// written by the KEP-6318 harness (cmd/standin): 1.38's
// k8s.io/client-go/ktesting calls TContext.WithDeadline, which v1.37.2 does
// not have.

package ktesting

import "time"

// WithDeadline is WithTimeout with the time that is left until deadline.
func (tCtx TContext) WithDeadline(deadline time.Time, timeoutCause string) TContext {
	return tCtx.WithTimeout(time.Until(deadline), timeoutCause)
}
