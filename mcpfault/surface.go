package mcpfault

import "github.com/faultline-go/faultline/problem"

// protocolKinds are the codes whose failure is a failure of the call
// itself, not of the operation the tool performs: the call was malformed,
// named something that does not exist, or could not reach its source. The
// model cannot fix that by reading a tool result, so it is a JSON-RPC error,
// with the JSON-RPC code the registry gives the kind (-32600, -32602 or
// -32603). Every other code (auth, policy, rate limit, size, upstream,
// timeout, audit) is a tool error the model reads and reacts to.
var protocolKinds = map[string]bool{
	problem.InvalidJSON.Name:          true,
	problem.BadRequest.Name:           true,
	problem.ValidationFailed.Name:     true,
	problem.UnsupportedMediaType.Name: true,
	problem.NotFound.Name:             true,
	problem.Unavailable.Name:          true,
	problem.Internal.Name:             true,
}

// status is the one-word state the InterLock contract puts beside a tool
// error, for clients that branch on it rather than on code.
func status(code string) string {
	switch code {
	case problem.Unauthorized.Name:
		return "unauthenticated"
	case problem.Forbidden.Name, problem.PolicyDenied.Name, problem.EgressBlocked.Name:
		return "denied"
	}
	return code
}
