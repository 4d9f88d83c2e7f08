package problem

import "strconv"

// RPCCode returns the JSON-RPC 2.0 error code of the problem's kind (see
// Kind.RPCCode). A problem not built from a Kind (one read with Parse)
// derives it from its action as Kind.jsonRPCCode does.
func (p *Problem) RPCCode() int {
	if p.rpcCode != 0 {
		return p.rpcCode
	}
	return Kind{Action: p.action}.jsonRPCCode()
}

// AppendJSONRPCError appends a JSON-RPC 2.0 error object for MCP servers and
// other JSON-RPC peers: {"code", "message", "data"}, with the whole problem
// (as AppendJSON renders it) as data.
func (p *Problem) AppendJSONRPCError(dst []byte) []byte {
	dst = append(dst, `{"code":`...)
	dst = strconv.AppendInt(dst, int64(p.RPCCode()), 10)
	dst = append(dst, `,"message":`...)
	dst = appendPublic(dst, p.Message())
	dst = append(dst, `,"data":`...)
	dst = p.AppendJSON(dst)
	return append(dst, '}')
}
