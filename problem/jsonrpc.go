package problem

// RPCCode returns the JSON-RPC 2.0 error code of the problem's kind (see
// Kind.RPCCode). A problem not built from a Kind (one read with Parse)
// derives it from its action as Kind.jsonRPCCode does.
func (p *Problem) RPCCode() int {
	if p.rpcCode != 0 {
		return p.rpcCode
	}
	return Kind{Action: p.action}.jsonRPCCode()
}
