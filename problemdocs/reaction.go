package problemdocs

import "github.com/faultline-go/faultline/problem"

// reactions say, per action, what a client does next. One sentence each so
// the page, the JSON and the OpenAPI descriptions say the same thing.
var reactions = map[problem.Action]string{
	problem.ActionRetry: "Retry after retry_after_ms (or the Retry-After header) with exponential backoff and jitter. " +
		"A write whose outcome is unknown is replayed only with the same Idempotency-Key.",
	problem.ActionVerify: "The outcome of the write is unknown. Find out whether it took effect (by its Idempotency-Key, " +
		"its operation id or a read) before doing anything else; never replay it blindly.",
	problem.ActionFixRequest:     "Change the request as detail and errors say; sending it again unchanged fails again.",
	problem.ActionReauthenticate: "Obtain fresh credentials, then send the request again.",
	problem.ActionConfigure:      "Something on the caller's side is configured wrongly; fix it before trying again.",
	problem.ActionApprove:        "Ask for the approval the operation needs; send the request again once it is granted.",
	problem.ActionUnlock:         "Wait until the resource is unlocked, or unlock it, then try again.",
	problem.ActionNone:           "An explicit refusal: do not retry and do not work around it.",
}

func reaction(a problem.Action) string {
	if s, ok := reactions[a]; ok {
		return s
	}
	return "Read code and action; see the catalog."
}
