// Package correlation accepts, validates, generates and propagates request
// correlation IDs and W3C trace context.
//
// Middleware gives every request an ID: an inbound one when it is Valid and
// unambiguous, otherwise a fresh UUIDv7. An inbound ID that the log tier of
// sanitize would redact (a token a client put in its request ID) is not
// Valid when sanitize is linked in, as it is with every faultline
// middleware: the operator finds the response's ID in the log as it is. The ID is echoed in the response
// header and stored in the request context, where ID reads it back (it
// replaces chi's middleware.GetReqID). NewHandler wraps a slog.Handler so
// that records logged with that context carry correlation_id and, when the
// request had a traceparent, trace_id: the one way to put them on a record,
// and how a response seen by a client is matched with the server's log
// lines. WithID gives a background job the ID of the request that started
// it.
//
// The package depends on the standard library only (and on the kit's
// internal corrstate, the per-request correlation middleware.Stack keeps
// inside its own state; logmark, through which sanitize's log tier reads
// inbound IDs without an import of it; and textclass's field-name check) and knows nothing of problem details or other
// middlewares. Rejected inbound IDs are logged to slog.Default(); inside
// middleware.Stack, to the problem writer's logger.
package correlation
