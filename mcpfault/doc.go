// Package mcpfault makes MCP tool servers built on the official Go SDK
// (github.com/modelcontextprotocol/go-sdk) speak faultline's contract.
//
// The SDK's own default is unsafe for agents: a typed tool handler that
// returns a Go error becomes a tool result whose text is err.Error(), raw
// driver text and all. With mcpfault, every failure an agent sees carries
// the same code, action, cause, retryable, retry_after_ms, outcome and
// correlation_id it would see over HTTP, and nothing raw:
//
//   - [Tool] wraps a typed tool handler; [Middleware] (installed with
//     Server.AddReceivingMiddleware) renders what the handler returned.
//   - A failure of the call itself (arguments that do not match the input
//     schema, an unknown tool, an unknown resource, an unavailable source) is
//     a JSON-RPC error whose data member is the problem document. In a
//     session of a protocol version before [ModernProtocolVersion] (one that
//     ran the initialize handshake), an unknown source or resource and an
//     unavailable one that a tool reports are tool results instead (see
//     below), with _meta.status not_found or unavailable and the reason, as
//     hosts of that era often show the model no JSON-RPC error.
//   - A failure of the operation the tool performs (authentication, policy,
//     rate limit, size, an upstream failure) is a tool result with isError
//     true, a one-line "code: message" text content and the problem document
//     as structuredContent, so the model can read it and react.
//   - An approval that is pending is not a failure: [Pending] renders as a
//     result with isError false and structuredContent.approval_id; the client
//     polls, it never repeats the call.
//   - Every failure is logged once, through the problem Writer's logger and
//     log tier, under the correlation ID of the HTTP request that carried it
//     ([Handler] hands it from the HTTP side to the MCP side).
//   - A call over the body limit is answered, by [TooLarge] outside the
//     kit's Stack, as a JSON-RPC error -32600 carrying the call's id and
//     the request_too_large problem, so the client's session survives it.
package mcpfault
