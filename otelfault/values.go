package otelfault

import (
	"net/http"

	"github.com/faultline-go/faultline/problem"
)

// The contract's closed sets. A hand-built Problem, or one handed to
// ObserveProblem without going through a Writer, can hold anything in
// these fields; a span or metric series gets only a member of the set, or
// other. A value of the right shape is not enough: "retry_later" looks like
// an action, and a dashboard that groups by faultline.action would grow a
// series no client understands.
var (
	actions = closedSet(problem.ActionRetry, problem.ActionVerify, problem.ActionFixRequest,
		problem.ActionReauthenticate, problem.ActionConfigure, problem.ActionApprove,
		problem.ActionUnlock, problem.ActionNone)
	causes = closedSet(problem.CauseRequest, problem.CauseAuth, problem.CausePolicy, problem.CauseConfig,
		problem.CauseInternal, problem.CauseUpstream, problem.CauseEnvironment)
	outcomes = closedSet(problem.OutcomeNotStarted, problem.OutcomeNotCommitted,
		problem.OutcomeCommitted, problem.OutcomeUnknown)
)

func closedSet[T ~string](values ...T) map[T]bool {
	m := make(map[T]bool, len(values))
	for _, v := range values {
		m[v] = true
	}
	return m
}

func inSet[T ~string](set map[T]bool, v T) string {
	if set[v] {
		return string(v)
	}
	return other
}

// codeValue is the problem's code when a registry declares it: the
// registry of the Telemetry (WithRegistry), else that of the Writer
// serving the request, else the default registry. Any other code (a
// hand-built Problem's, or text a caller put there) is other, so the
// number of series stays bounded by the codes a service declares.
func (t *Telemetry) codeValue(r *http.Request, code string) string {
	if code == "" {
		return other
	}
	if t.registry != nil {
		if _, ok := t.registry.Lookup(problem.Kind(code)); ok {
			return code
		}
		return other
	}
	if r != nil {
		if _, ok := problem.FromContext(r.Context()).Registry().Lookup(problem.Kind(code)); ok {
			return code
		}
	}
	if _, ok := problem.DefaultRegistry().Lookup(problem.Kind(code)); ok {
		return code
	}
	return other
}
