// Package problem is faultline's contract: every failure of an HTTP API
// answered as an RFC 9457 problem document with stable, machine-readable
// guidance a client can act on without reading prose.
//
// # The pieces
//
// A Kind is one entry of the registry: a code such as not_found with its
// status, title, action, cause and retryability. The built-in catalog
// (NotFound, ValidationFailed, Internal, ...) is registered in every
// Registry; services register their own with MustRegister. Codes are never
// renumbered nor reused: a code on its way out is deprecated, and a retired
// name is refused forever.
//
// A Problem is one occurrence of a Kind: New(k) and then the With methods,
// each of which returns a new Problem and never changes its receiver, so a
// Problem or a Kind kept in a package variable is safe to share between
// requests. A Problem is an error, and so is a Kind: a handler can return
// either, and errors.Is(err, problem.NotFound) matches any not_found
// problem in a chain.
//
// A Writer is the one configuration: type base URI, registry, logger,
// legacy window, error mappers, code header, observer. Its Write renders
// the problem in the representation the request accepts (problem+json,
// problem+xml, a text/plain proxy plane; HEAD gets headers only), logs one
// record with the correlation ID, and enforces the contract whatever the
// Problem says: the code must be registered (otherwise internal goes out
// and the developer is told once), a code that hides details never shows
// one, an unknown outcome without an Idempotency-Key is never retryable and
// asks the client to verify, action retry never goes with retryable false,
// and Retry-After agrees with retry_after_ms. The kit's middlewares and
// other packages find the Writer in the request's context (NewContext), so
// a service gives its logger and options once.
//
// # Text that reaches a client
//
// Nothing raw leaks: detail, titles, extension values and keys, field
// errors and instance pass sanitize.Public when rendered, whatever path set
// them; err.Error() of a wrapped error is never rendered, it is logged
// through the log tier. Text meant for a client comes from WithDetail or an
// error's PublicDetail method. WithInsecureDevelopmentMode adds the hidden
// detail and the error chain to responses on a developer's machine, and
// refuses to turn on when FAULTLINE_ENV says production.
package problem
