package mcpfault

import "github.com/faultline-go/faultline/problem"

// JSON-RPC 2.0 error codes (the SDK's jsonrpc package names them too).
const (
	rpcInvalidRequest = -32600
	rpcInvalidParams  = -32602
	rpcInternalError  = -32603
)

// protocolCodes are the codes whose failure is a failure of the call itself,
// not of the operation the tool performs, with the JSON-RPC error code each
// one goes out with. The call was malformed, named something that does not
// exist, or could not reach its source: the model cannot fix that by reading
// a tool result, so it is a protocol error. Every other code (auth, policy,
// rate limit, size, upstream, timeout, audit) is a tool error the model
// reads and reacts to.
var protocolCodes = map[string]int{
	problem.InvalidJSON.Name:          rpcInvalidRequest,
	problem.BadRequest.Name:           rpcInvalidParams,
	problem.ValidationFailed.Name:     rpcInvalidParams,
	problem.UnsupportedMediaType.Name: rpcInvalidParams,
	problem.NotFound.Name:             rpcInvalidParams,
	problem.Unavailable.Name:          rpcInternalError,
	problem.Internal.Name:             rpcInternalError,
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
