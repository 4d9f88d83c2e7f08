package mcpfault

import (
	"github.com/faultline-go/faultline/problem"
	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// protocolKinds are the codes whose failure is a failure of the call
// itself, not of the operation the tool performs: the call was malformed,
// named something that does not exist, or could not reach its source. The
// model cannot fix that by reading a tool result, so it is a JSON-RPC error,
// with the JSON-RPC code the registry gives the kind (-32600, -32602 or
// -32603). Every other code (auth, policy, rate limit, size, upstream,
// timeout, audit) is a tool error the model reads and reacts to.
var protocolKinds = map[string]bool{
	string(problem.InvalidJSON):          true,
	string(problem.BadRequest):           true,
	string(problem.ValidationFailed):     true,
	string(problem.UnsupportedMediaType): true,
	string(problem.NotFound):             true,
	string(problem.Unavailable):          true,
	string(problem.Internal):             true,
}

// ModernProtocolVersion is the first MCP protocol version whose tool calls
// answer an unknown source or an unavailable one with a JSON-RPC error:
// 2026-07-28, the first without the initialize handshake (SEP-2575), where
// every request names its protocol version in _meta. A session of an
// earlier version (one that ran the handshake: 2024-11-05 to 2025-11-25)
// gets those failures as a tool result with isError true instead, because
// hosts of that era often do not show a JSON-RPC error to the model at
// all, so it could neither pick another source nor wait.
const ModernProtocolVersion = "2026-07-28"

// handshakeToolResults are the protocol kinds a tool call of a
// handshake-era session answers as a tool result: the model must read
// them to choose another source (not_found) or to wait for this one
// (unavailable, with the reason and retry_after_ms).
var handshakeToolResults = map[string]bool{
	string(problem.NotFound):    true,
	string(problem.Unavailable): true,
}

// asRPCError reports whether the failure of a call of method is a JSON-RPC
// error rather than a tool result, by its code and the protocol version
// the request follows.
func asRPCError(method string, req mcp.Request, code string) bool {
	if !protocolKinds[code] {
		return false
	}
	return method != "tools/call" || !handshakeToolResults[code] || modern(req)
}

// modern reports whether req follows ModernProtocolVersion or later. The
// SDK decides it per request, from the protocol version the request's
// _meta names, and so does this: a handshake-era session's requests carry
// none, and what such a session negotiated is always earlier (the SDK's
// initialize never agrees on a sessionless version).
func modern(req mcp.Request) bool {
	r, ok := req.(*mcp.CallToolRequest)
	if !ok || r == nil || r.Params == nil {
		return false
	}
	v, _ := r.Params.Meta[mcp.MetaKeyProtocolVersion].(string)
	return v >= ModernProtocolVersion
}

// status is the one-word state the InterLock contract puts beside a tool
// error, for clients that branch on it rather than on code.
func status(code string) string {
	switch code {
	case string(problem.Unauthorized):
		return "unauthenticated"
	case string(problem.Forbidden), string(problem.PolicyDenied), string(problem.EgressBlocked):
		return "denied"
	}
	return code
}
