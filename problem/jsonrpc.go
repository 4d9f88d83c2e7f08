package problem

// RPCCode returns the JSON-RPC 2.0 error code of the problem's code (see
// Definition.RPCCode). A problem not built from a definition (one read
// with Parse) derives it from its action, as a definition without one
// does.
func (p *Problem) RPCCode() int {
	if p.rpcCode != 0 {
		return p.rpcCode
	}
	return actionRPCCode(p.action)
}
