package problem

// The built-in kinds. Each is registered in every NewRegistry with its
// definition from builtin; services build problems from them directly with
// New.
const (
	BadRequest           Kind = "bad_request"
	InvalidJSON          Kind = "invalid_json"
	ValidationFailed     Kind = "validation_failed"
	UnsupportedMediaType Kind = "unsupported_media_type"
	NotAcceptable        Kind = "not_acceptable"
	Unauthorized         Kind = "unauthorized"
	Forbidden            Kind = "forbidden"
	PolicyDenied         Kind = "policy_denied"
	NotFound             Kind = "not_found"
	MethodNotAllowed     Kind = "method_not_allowed"
	Gone                 Kind = "gone"
	Conflict             Kind = "conflict"
	PreconditionFailed   Kind = "precondition_failed"
	Locked               Kind = "locked"
	RequestTooLarge      Kind = "request_too_large"
	// ResponseTooLarge is a 400, not a 413: 413 tells a client to shorten
	// its request body, while here the body may be empty and the client
	// must ask for less (a narrower query, a smaller page).
	ResponseTooLarge            Kind = "response_too_large"
	RateLimited                 Kind = "rate_limited"
	ApprovalRequired            Kind = "approval_required"
	EgressBlocked               Kind = "egress_blocked"
	ClientClosedRequest         Kind = "client_closed_request"
	Internal                    Kind = "internal"
	NotImplemented              Kind = "not_implemented"
	UpstreamError               Kind = "upstream_error"
	UpstreamRequestFailed       Kind = "upstream_request_failed"
	Unavailable                 Kind = "unavailable"
	CacheConsistencyUnavailable Kind = "cache_consistency_unavailable"
	AuditUnavailable            Kind = "audit_unavailable"
	Timeout                     Kind = "timeout"
	UpstreamTimeout             Kind = "upstream_timeout"
)

// builtin holds the definitions of the built-in kinds. A code's JSON-RPC
// code is derived (see Definition.jsonRPCCode) unless RPCCode says
// otherwise.
// The order is the registration order, which Kinds and the code table keep
// and ForStatus follows: the first code of a status stands for it.
var builtin = [...]Definition{
	{Code: BadRequest, Status: 400, Title: "Bad request",
		Action: ActionFixRequest, Cause: CauseRequest, ShowDetail: true,
		DefaultDetail: "The request could not be understood.",
		Meaning:       "The request is malformed in a way no more specific code covers."},
	{Code: InvalidJSON, Status: 400, Title: "Invalid JSON",
		Action: ActionFixRequest, Cause: CauseRequest, ShowDetail: true,
		DefaultDetail: "The request body is not valid JSON.",
		Meaning:       "The body is not well-formed JSON or does not fit the expected shape.",
		RPCCode:       RPCInvalidRequest},
	{Code: ValidationFailed, Status: 422, Title: "Validation failed",
		Action: ActionFixRequest, Cause: CauseRequest, ShowDetail: true,
		DefaultDetail: "One or more fields are invalid.",
		Meaning:       "The body parsed but fields break their rules; every field error is listed in errors."},
	{Code: UnsupportedMediaType, Status: 415, Title: "Unsupported media type",
		Action: ActionFixRequest, Cause: CauseRequest, ShowDetail: true,
		DefaultDetail: "The request body's media type is not supported.",
		Meaning:       "The Content-Type of the body is not one the endpoint accepts."},
	{Code: NotAcceptable, Status: 406, Title: "Not acceptable",
		Action: ActionFixRequest, Cause: CauseRequest, ShowDetail: true,
		DefaultDetail: "No representation matches the Accept header.",
		Meaning:       "The endpoint cannot produce any media type the Accept header allows."},
	{Code: Unauthorized, Status: 401, Title: "Authentication required",
		Action: ActionReauthenticate, Cause: CauseAuth, ShowDetail: true,
		DefaultDetail: "Valid credentials are required.",
		Meaning:       "Credentials are missing, expired or invalid."},
	{Code: Forbidden, Status: 403, Title: "Forbidden",
		Action: ActionNone, Cause: CauseAuth, ShowDetail: true,
		DefaultDetail: "The credentials do not grant access to this resource.",
		Meaning:       "The caller is known but not allowed to do this."},
	{Code: PolicyDenied, Status: 403, Title: "Denied by policy",
		Action: ActionNone, Cause: CausePolicy, ShowDetail: true,
		DefaultDetail: "A policy forbids this operation.",
		Meaning:       "A configured policy refuses the operation whoever asks; do not work around it."},
	{Code: NotFound, Status: 404, Title: "Not found",
		Action: ActionFixRequest, Cause: CauseRequest, ShowDetail: true,
		DefaultDetail: "No resource exists at this address.",
		Meaning:       "The route or the resource does not exist."},
	{Code: MethodNotAllowed, Status: 405, Title: "Method not allowed",
		Action: ActionFixRequest, Cause: CauseRequest, ShowDetail: true,
		DefaultDetail: "The method is not allowed here; the Allow header lists those that are.",
		Meaning:       "The route exists but not for this method; see the Allow header."},
	{Code: Gone, Status: 410, Title: "Gone",
		Action: ActionNone, Cause: CauseRequest, ShowDetail: true,
		DefaultDetail: "This resource existed but has been removed for good.",
		Meaning:       "The resource or endpoint was removed on purpose; do not retry it."},
	{Code: Conflict, Status: 409, Title: "Conflict",
		Action: ActionFixRequest, Cause: CauseRequest, ShowDetail: true,
		DefaultDetail: "The request conflicts with the current state of the resource.",
		Meaning:       "The resource changed or exists already; re-read it before trying again."},
	{Code: PreconditionFailed, Status: 412, Title: "Precondition failed",
		Action: ActionFixRequest, Cause: CauseRequest, ShowDetail: true,
		DefaultDetail: "A precondition in the request headers does not hold.",
		Meaning:       "If-Match or a similar condition failed; fetch the current version first."},
	{Code: Locked, Status: 423, Title: "Locked",
		Action: ActionUnlock, Cause: CausePolicy, ShowDetail: true,
		DefaultDetail: "The resource is locked.",
		Meaning:       "The resource is locked until someone releases it."},
	{Code: RequestTooLarge, Status: 413, Title: "Request too large",
		Action: ActionFixRequest, Cause: CauseRequest, ShowDetail: true,
		DefaultDetail: "The request body is larger than this endpoint accepts.",
		Meaning:       "The body exceeds the configured limit; send less.",
		RPCCode:       RPCInvalidRequest},
	{Code: RateLimited, Status: 429, Title: "Too many requests",
		Action: ActionRetry, Cause: CauseRequest, Retryable: true, ShowDetail: true,
		DefaultDetail: "The rate limit was reached.",
		Meaning:       "A rate limit was reached; retry after retry_after_ms."},
	{Code: ApprovalRequired, Status: 403, Title: "Approval required",
		Action: ActionApprove, Cause: CausePolicy, ShowDetail: true,
		DefaultDetail: "The operation needs an approval before it can run.",
		Meaning:       "A person or policy must approve the operation; retry once approved."},
	{Code: EgressBlocked, Status: 403, Title: "Egress blocked",
		Action: ActionNone, Cause: CausePolicy, ShowDetail: true,
		DefaultDetail: "The outbound destination is not allowed.",
		Meaning:       "The operation needed an outbound connection that policy forbids."},
	{Code: ClientClosedRequest, Status: 499, Title: "Client closed request",
		Action: ActionRetry, Cause: CauseRequest, Retryable: true, ShowDetail: true,
		DefaultDetail: "The client closed the request before the response was ready.",
		Meaning:       "The client went away first; mostly seen in logs."},
	{Code: Internal, Status: 500, Title: "Internal server error",
		Action: ActionRetry, Cause: CauseInternal, Retryable: true, ShowDetail: false,
		DefaultDetail: "The server failed to complete the request. The failure was logged under the correlation ID.",
		Meaning:       "An unexpected failure; its detail is in the server log under the correlation ID."},
	{Code: NotImplemented, Status: 501, Title: "Not implemented",
		Action: ActionNone, Cause: CauseConfig, ShowDetail: true,
		DefaultDetail: "This operation is not implemented.",
		Meaning:       "The server does not support this operation."},
	{Code: UpstreamError, Status: 502, Title: "Upstream error",
		Action: ActionRetry, Cause: CauseUpstream, Retryable: true, ShowDetail: true,
		DefaultDetail: "A service this request depends on failed.",
		Meaning:       "A dependency answered with an error."},
	{Code: Unavailable, Status: 503, Title: "Service unavailable",
		Action: ActionRetry, Cause: CauseEnvironment, Retryable: true, ShowDetail: true,
		DefaultDetail: "The service is temporarily unavailable.",
		Meaning:       "The service is overloaded, starting or in maintenance."},
	{Code: Timeout, Status: 503, Title: "Request timed out",
		Action: ActionRetry, Cause: CauseInternal, Retryable: true, ShowDetail: true,
		DefaultDetail: "The request did not complete in time.",
		Meaning:       "The server's own deadline for the request passed; see outcome before retrying a write."},
	{Code: UpstreamTimeout, Status: 504, Title: "Upstream timeout",
		Action: ActionRetry, Cause: CauseUpstream, Retryable: true, ShowDetail: true,
		DefaultDetail: "A service this request depends on did not answer in time.",
		Meaning:       "A dependency did not answer in time."},
	{Code: ResponseTooLarge, Status: 400, Title: "Response too large",
		Action: ActionFixRequest, Cause: CauseRequest, ShowDetail: true,
		DefaultDetail: "The result of this request is larger than the server will send.",
		Meaning:       "The answer would exceed the server's limit; ask for less (filter, paginate)."},
	{Code: UpstreamRequestFailed, Status: 502, Title: "Upstream request failed",
		Action: ActionRetry, Cause: CauseUpstream, Retryable: true, ShowDetail: true,
		DefaultDetail: "A request to a service this one depends on failed before an answer came back.",
		Meaning:       "The call to a dependency failed in transit (refused, reset, TLS, DNS); a write's outcome is unknown, so it is retried only with an Idempotency-Key."},
	{Code: CacheConsistencyUnavailable, Status: 503, Title: "Cache consistency unavailable",
		Action: ActionRetry, Cause: CauseEnvironment, Retryable: true, Outcome: OutcomeNotStarted, ShowDetail: true,
		DefaultDetail: "The server cannot currently guarantee a consistent answer, so it did not serve one.",
		Meaning:       "The shared cache that keeps instances consistent is unreachable; the server refuses rather than answer from stale state."},
	{Code: AuditUnavailable, Status: 503, Title: "Audit unavailable",
		Action: ActionRetry, Cause: CauseEnvironment, Retryable: true, Outcome: OutcomeNotStarted, ShowDetail: true,
		DefaultDetail: "The request was refused because its audit record could not be written; nothing was done.",
		Meaning:       "Strict audit mode: the audit sink did not accept the request's event, so the request was rejected before any side effect."},
}

// builtinNames holds the names of the built-in catalog, whose pages live
// under DefaultBaseURI.
var builtinNames = func() map[string]bool {
	m := make(map[string]bool, len(builtin))
	for _, d := range builtin {
		m[string(d.Code)] = true
	}
	return m
}()

// typeFor is the type URI of code under base. DefaultBaseURI documents the
// built-in catalog only: a service's own code under it would point its
// clients at pages faultline does not have and the service does not
// control, so without a base of its own (WithBaseURI) such a code is
// about:blank, RFC 9457's type for "nothing beyond the status and the
// members", and its code member alone identifies it.
func typeFor(base, code string) string {
	if base == DefaultBaseURI && !builtinNames[code] {
		return "about:blank"
	}
	return base + code
}
