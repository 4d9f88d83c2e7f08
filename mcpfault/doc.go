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
//
// It is its own Go module, so the kit's go.mod never gains the SDK.
//
// # Wiring
//
// Install Middleware on the server, register tools with [AddTool], and
// serve the SDK's streamable HTTP handler through [Handler] behind the kit's
// middleware.Stack, with [TooLarge] outside it:
//
//	server := mcp.NewServer(&mcp.Implementation{Name: "orders", Version: "1.0.0"}, nil)
//	server.AddReceivingMiddleware(mcpfault.Middleware(mcpfault.WithWriter(wr)))
//	mcpfault.AddTool(server, &mcp.Tool{Name: "get_order", Annotations: &mcp.ToolAnnotations{ReadOnlyHint: true}}, getOrder)
//	h := mcp.NewStreamableHTTPHandler(func(*http.Request) *mcp.Server { return server }, nil)
//	mux.Handle("/mcp", mcpfault.Handler(h)) // behind Stack: 401, 403, 413, 429 and 503 are problems
//	http.ListenAndServe(addr, mcpfault.TooLarge(middleware.Stack(middleware.WithWriter(wr), middleware.WithBodyLimit(1<<20))(mux)))
//
// Over stdio, serve the same server through [StdioTransport] (or
// [IOTransport] over any other stream) in place of the SDK's transport:
// the SDK answers some malformed calls itself, before Middleware runs,
// with a message that quotes the call and names Go types, and these
// transports rewrite that answer as [Handler] does over HTTP:
//
//	err := server.Run(ctx, mcpfault.StdioTransport(mcpfault.WithWriter(wr)))
//
// # What an agent sees
//
// The shape of a failure follows the protocol version of the request.
// From [ModernProtocolVersion] (2026-07-28, the first version without the
// initialize handshake) an unknown source and an open circuit are JSON-RPC
// errors; in a session that ran the handshake (2024-11-05 to 2025-11-25),
// whose hosts often show the model no JSON-RPC error, they are tool results
// the model reads. Failure by failure (HTTP status; MCP before 2026-07-28;
// from 2026-07-28, when it differs):
//
//   - Invalid input (invalid_json, bad_request, validation_failed): 400 or
//     422; a JSON-RPC error -32600 or -32602 whose data is the problem.
//   - Unknown tool: 404; JSON-RPC error -32602.
//   - Unknown source or resource a tool reads (not_found): 404; a tool result
//     with isError true, _meta.status not_found and the text
//     "not_found: <reason>"; from 2026-07-28 a JSON-RPC error -32602 with
//     the reason.
//   - Source unavailable, circuit open (unavailable): 503; a tool result with
//     isError true, _meta.status unavailable, the reason and retry_after_ms;
//     from 2026-07-28 a JSON-RPC error -32603 with the reason.
//   - Panic (internal): 500; JSON-RPC error -32603.
//   - Body over the limit (request_too_large, with TooLarge): 413
//     problem+json over HTTP; 413 with a JSON-RPC error -32600 carrying the
//     request's id and the problem as data, and the session goes on.
//   - Authentication, policy, egress, rate limit, size, upstream, timeout,
//     audit: 401, 403, 429, 400, 502 or 503; a tool result with isError
//     true, the text "code: message", the problem as structuredContent and
//     _meta.status (unauthenticated, denied, rate_limited, or the code).
//   - Approval pending (Pending): 202; a tool result with isError false and
//     structuredContent {approval_id, state: "pending", action: "poll"}:
//     poll, never repeat the call.
//
// The JSON-RPC code of each kind comes from the registry (the JSON-RPC
// column of the code table in the repository's README). A tool call carries
// no Idempotency-Key, so a write whose outcome is unknown says action verify
// on MCP as over HTTP (see [AddTool]). Over a transport without HTTP (stdio,
// in memory) each call, and each error the SDK answers on its own through
// [StdioTransport] or [IOTransport], gets a fresh correlation ID; behind
// [Handler] it is the HTTP request's, which a client cannot override by
// sending the internal hand-off header itself.
//
// The repository's examples/mcp-server runs every case above over
// streamable HTTP with the SDK's own client. The wrapper costs nothing
// measurable on a successful call (about 200 µs per in-memory call either
// way, 2 allocations more than the bare SDK's 280).
package mcpfault
