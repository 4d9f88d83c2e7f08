package problem

import "strconv"

// JSON-RPC 2.0 error codes a problem maps to.
const (
	RPCInvalidRequest = -32600
	RPCInvalidParams  = -32602
	RPCInternalError  = -32603
)

// RPCCode maps a problem to a JSON-RPC 2.0 error code: bad input is
// invalid params, a malformed body an invalid request, everything else an
// internal error (the problem in data says more).
func (p *Problem) RPCCode() int {
	switch p.Code {
	case InvalidJSON.Name:
		return RPCInvalidRequest
	case ValidationFailed.Name, BadRequest.Name, UnsupportedMediaType.Name, RequestTooLarge.Name:
		return RPCInvalidParams
	}
	return RPCInternalError
}

// AppendJSONRPCError appends a JSON-RPC 2.0 error object for MCP servers and
// other JSON-RPC peers: {"code", "message", "data"}, with the whole problem
// as data.
func (p *Problem) AppendJSONRPCError(dst []byte, legacy bool) []byte {
	dst = append(dst, `{"code":`...)
	dst = strconv.AppendInt(dst, int64(p.RPCCode()), 10)
	dst = append(dst, `,"message":`...)
	dst = appendPublic(dst, p.Message())
	dst = append(dst, `,"data":`...)
	dst = p.AppendJSON(dst, legacy)
	return append(dst, '}')
}
