package problem

// The built-in catalog. Each is registered in every NewRegistry; services
// build problems from these values directly with New. A kind's JSON-RPC code
// is derived (see Kind.jsonRPCCode) unless RPCCode says otherwise.
var (
	BadRequest = Kind{Name: "bad_request", Status: 400, Title: "Bad request",
		Action: ActionFixRequest, Cause: CauseRequest, ShowDetail: true,
		DefaultDetail: "The request could not be understood.",
		Meaning:       "The request is malformed in a way no more specific code covers."}
	InvalidJSON = Kind{Name: "invalid_json", Status: 400, Title: "Invalid JSON",
		Action: ActionFixRequest, Cause: CauseRequest, ShowDetail: true,
		DefaultDetail: "The request body is not valid JSON.",
		Meaning:       "The body is not well-formed JSON or does not fit the expected shape.",
		RPCCode:       RPCInvalidRequest}
	ValidationFailed = Kind{Name: "validation_failed", Status: 422, Title: "Validation failed",
		Action: ActionFixRequest, Cause: CauseRequest, ShowDetail: true,
		DefaultDetail: "One or more fields are invalid.",
		Meaning:       "The body parsed but fields break their rules; every field error is listed in errors."}
	UnsupportedMediaType = Kind{Name: "unsupported_media_type", Status: 415, Title: "Unsupported media type",
		Action: ActionFixRequest, Cause: CauseRequest, ShowDetail: true,
		DefaultDetail: "The request body's media type is not supported.",
		Meaning:       "The Content-Type of the body is not one the endpoint accepts."}
	NotAcceptable = Kind{Name: "not_acceptable", Status: 406, Title: "Not acceptable",
		Action: ActionFixRequest, Cause: CauseRequest, ShowDetail: true,
		DefaultDetail: "No representation matches the Accept header.",
		Meaning:       "The endpoint cannot produce any media type the Accept header allows."}
	Unauthorized = Kind{Name: "unauthorized", Status: 401, Title: "Authentication required",
		Action: ActionReauthenticate, Cause: CauseAuth, ShowDetail: true,
		DefaultDetail: "Valid credentials are required.",
		Meaning:       "Credentials are missing, expired or invalid."}
	Forbidden = Kind{Name: "forbidden", Status: 403, Title: "Forbidden",
		Action: ActionNone, Cause: CauseAuth, ShowDetail: true,
		DefaultDetail: "The credentials do not grant access to this resource.",
		Meaning:       "The caller is known but not allowed to do this."}
	PolicyDenied = Kind{Name: "policy_denied", Status: 403, Title: "Denied by policy",
		Action: ActionNone, Cause: CausePolicy, ShowDetail: true,
		DefaultDetail: "A policy forbids this operation.",
		Meaning:       "A configured policy refuses the operation whoever asks; do not work around it."}
	NotFound = Kind{Name: "not_found", Status: 404, Title: "Not found",
		Action: ActionFixRequest, Cause: CauseRequest, ShowDetail: true,
		DefaultDetail: "No resource exists at this address.",
		Meaning:       "The route or the resource does not exist."}
	MethodNotAllowed = Kind{Name: "method_not_allowed", Status: 405, Title: "Method not allowed",
		Action: ActionFixRequest, Cause: CauseRequest, ShowDetail: true,
		DefaultDetail: "The method is not allowed here; the Allow header lists those that are.",
		Meaning:       "The route exists but not for this method; see the Allow header."}
	Gone = Kind{Name: "gone", Status: 410, Title: "Gone",
		Action: ActionNone, Cause: CauseRequest, ShowDetail: true,
		DefaultDetail: "This resource existed but has been removed for good.",
		Meaning:       "The resource or endpoint was removed on purpose; do not retry it."}
	Conflict = Kind{Name: "conflict", Status: 409, Title: "Conflict",
		Action: ActionFixRequest, Cause: CauseRequest, ShowDetail: true,
		DefaultDetail: "The request conflicts with the current state of the resource.",
		Meaning:       "The resource changed or exists already; re-read it before trying again."}
	PreconditionFailed = Kind{Name: "precondition_failed", Status: 412, Title: "Precondition failed",
		Action: ActionFixRequest, Cause: CauseRequest, ShowDetail: true,
		DefaultDetail: "A precondition in the request headers does not hold.",
		Meaning:       "If-Match or a similar condition failed; fetch the current version first."}
	Locked = Kind{Name: "locked", Status: 423, Title: "Locked",
		Action: ActionUnlock, Cause: CausePolicy, ShowDetail: true,
		DefaultDetail: "The resource is locked.",
		Meaning:       "The resource is locked until someone releases it."}
	RequestTooLarge = Kind{Name: "request_too_large", Status: 413, Title: "Request too large",
		Action: ActionFixRequest, Cause: CauseRequest, ShowDetail: true,
		DefaultDetail: "The request body is larger than this endpoint accepts.",
		Meaning:       "The body exceeds the configured limit; send less.",
		RPCCode:       RPCInvalidRequest}
	// ResponseTooLarge is a 400, not a 413: 413 tells a client to shorten
	// its request body, while here the body may be empty and the client
	// must ask for less (a narrower query, a smaller page).
	ResponseTooLarge = Kind{Name: "response_too_large", Status: 400, Title: "Response too large",
		Action: ActionFixRequest, Cause: CauseRequest, ShowDetail: true,
		DefaultDetail: "The result of this request is larger than the server will send.",
		Meaning:       "The answer would exceed the server's limit; ask for less (filter, paginate)."}
	RateLimited = Kind{Name: "rate_limited", Status: 429, Title: "Too many requests",
		Action: ActionRetry, Cause: CauseRequest, Retryable: true, ShowDetail: true,
		DefaultDetail: "The rate limit was reached.",
		Meaning:       "A rate limit was reached; retry after retry_after_ms."}
	ApprovalRequired = Kind{Name: "approval_required", Status: 403, Title: "Approval required",
		Action: ActionApprove, Cause: CausePolicy, ShowDetail: true,
		DefaultDetail: "The operation needs an approval before it can run.",
		Meaning:       "A person or policy must approve the operation; retry once approved."}
	EgressBlocked = Kind{Name: "egress_blocked", Status: 403, Title: "Egress blocked",
		Action: ActionNone, Cause: CausePolicy, ShowDetail: true,
		DefaultDetail: "The outbound destination is not allowed.",
		Meaning:       "The operation needed an outbound connection that policy forbids."}
	ClientClosedRequest = Kind{Name: "client_closed_request", Status: 499, Title: "Client closed request",
		Action: ActionRetry, Cause: CauseRequest, Retryable: true, ShowDetail: true,
		DefaultDetail: "The client closed the request before the response was ready.",
		Meaning:       "The client went away first; mostly seen in logs."}
	Internal = Kind{Name: "internal", Status: 500, Title: "Internal server error",
		Action: ActionRetry, Cause: CauseInternal, Retryable: true, ShowDetail: false,
		DefaultDetail: "The server failed to complete the request. The failure was logged under the correlation ID.",
		Meaning:       "An unexpected failure; its detail is in the server log under the correlation ID."}
	NotImplemented = Kind{Name: "not_implemented", Status: 501, Title: "Not implemented",
		Action: ActionNone, Cause: CauseConfig, ShowDetail: true,
		DefaultDetail: "This operation is not implemented.",
		Meaning:       "The server does not support this operation."}
	UpstreamError = Kind{Name: "upstream_error", Status: 502, Title: "Upstream error",
		Action: ActionRetry, Cause: CauseUpstream, Retryable: true, ShowDetail: true,
		DefaultDetail: "A service this request depends on failed.",
		Meaning:       "A dependency answered with an error."}
	UpstreamRequestFailed = Kind{Name: "upstream_request_failed", Status: 502, Title: "Upstream request failed",
		Action: ActionRetry, Cause: CauseUpstream, Retryable: true, ShowDetail: true,
		DefaultDetail: "A request to a service this one depends on failed before an answer came back.",
		Meaning:       "The call to a dependency failed in transit (refused, reset, TLS, DNS); a write's outcome is unknown, so it is retried only with an Idempotency-Key."}
	Unavailable = Kind{Name: "unavailable", Status: 503, Title: "Service unavailable",
		Action: ActionRetry, Cause: CauseEnvironment, Retryable: true, ShowDetail: true,
		DefaultDetail: "The service is temporarily unavailable.",
		Meaning:       "The service is overloaded, starting or in maintenance."}
	CacheConsistencyUnavailable = Kind{Name: "cache_consistency_unavailable", Status: 503, Title: "Cache consistency unavailable",
		Action: ActionRetry, Cause: CauseEnvironment, Retryable: true, Outcome: OutcomeNotStarted, ShowDetail: true,
		DefaultDetail: "The server cannot currently guarantee a consistent answer, so it did not serve one.",
		Meaning:       "The shared cache that keeps instances consistent is unreachable; the server refuses rather than answer from stale state."}
	AuditUnavailable = Kind{Name: "audit_unavailable", Status: 503, Title: "Audit unavailable",
		Action: ActionRetry, Cause: CauseEnvironment, Retryable: true, Outcome: OutcomeNotStarted, ShowDetail: true,
		DefaultDetail: "The request was refused because its audit record could not be written; nothing was done.",
		Meaning:       "Strict audit mode: the audit sink did not accept the request's event, so the request was rejected before any side effect."}
	Timeout = Kind{Name: "timeout", Status: 503, Title: "Request timed out",
		Action: ActionRetry, Cause: CauseInternal, Retryable: true, ShowDetail: true,
		DefaultDetail: "The request did not complete in time.",
		Meaning:       "The server's own deadline for the request passed; see outcome before retrying a write."}
	UpstreamTimeout = Kind{Name: "upstream_timeout", Status: 504, Title: "Upstream timeout",
		Action: ActionRetry, Cause: CauseUpstream, Retryable: true, ShowDetail: true,
		DefaultDetail: "A service this request depends on did not answer in time.",
		Meaning:       "A dependency did not answer in time."}
)

var builtin = []Kind{
	BadRequest, InvalidJSON, ValidationFailed, UnsupportedMediaType, NotAcceptable,
	Unauthorized, Forbidden, PolicyDenied, NotFound, MethodNotAllowed, Gone, Conflict,
	PreconditionFailed, Locked, RequestTooLarge, RateLimited, ApprovalRequired,
	EgressBlocked, ClientClosedRequest, Internal, NotImplemented, UpstreamError,
	Unavailable, Timeout, UpstreamTimeout, ResponseTooLarge, UpstreamRequestFailed,
	CacheConsistencyUnavailable, AuditUnavailable,
}

// builtinNames holds the names of the built-in catalog, whose pages live
// under DefaultBaseURI.
var builtinNames = func() map[string]bool {
	m := make(map[string]bool, len(builtin))
	for _, k := range builtin {
		m[k.Name] = true
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
