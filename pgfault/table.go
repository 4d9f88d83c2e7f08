package pgfault

import "github.com/faultline-go/faultline/problem"

// rule maps one SQLSTATE, or a whole class by its first two characters,
// to the public contract. The detail is written here, for clients; nothing
// of the server's message, which names objects and quotes values, is ever
// used instead.
type rule struct {
	state string
	// routine, when set, narrows the rule to errors raised by that server
	// function: the one SQLSTATE can mean two different things.
	routine string
	name    string // the condition's name in PostgreSQL's appendix A
	code    problem.Kind
	detail  string
	// outcome is what became of a statement the server refused; zero for
	// the rules where it depends on when the failure happened.
	outcome problem.Outcome
	// dropped marks a lost session: the outcome depends on whether the
	// statement was a read or a write.
	dropped bool
	// retrySoon adds a short jittered retry_after_ms: the condition is
	// transient and clears in milliseconds, not seconds.
	retrySoon bool
}

// rules is the SQLSTATE table, most specific first within each class; the
// README's table is rendered from it (go test -update).
var rules = []rule{
	{state: "23505", name: "unique_violation", code: problem.Conflict, outcome: problem.OutcomeNotCommitted,
		detail: "A record with the same unique value already exists."},
	{state: "23503", name: "foreign_key_violation", code: problem.Conflict, outcome: problem.OutcomeNotCommitted,
		detail: "The request refers to a record that does not exist, or removes one that others still refer to."},
	{state: "23P01", name: "exclusion_violation", code: problem.Conflict, outcome: problem.OutcomeNotCommitted,
		detail: "The request conflicts with an existing record."},
	{state: "23502", name: "not_null_violation", code: problem.ValidationFailed, outcome: problem.OutcomeNotCommitted,
		detail: "A required value is missing."},
	{state: "23514", name: "check_violation", code: problem.ValidationFailed, outcome: problem.OutcomeNotCommitted,
		detail: "A value breaks a rule of the data model."},
	{state: "23", name: "integrity_constraint_violation", code: problem.Conflict, outcome: problem.OutcomeNotCommitted,
		detail: "The request conflicts with the current state of the data."},

	{state: "22001", name: "string_data_right_truncation", code: problem.ValidationFailed, outcome: problem.OutcomeNotCommitted,
		detail: "A value is longer than allowed."},
	{state: "22003", name: "numeric_value_out_of_range", code: problem.ValidationFailed, outcome: problem.OutcomeNotCommitted,
		detail: "A number is out of range."},
	{state: "22P02", name: "invalid_text_representation", code: problem.ValidationFailed, outcome: problem.OutcomeNotCommitted,
		detail: "A value does not have the expected type or format."},
	{state: "22007", name: "invalid_datetime_format", code: problem.ValidationFailed, outcome: problem.OutcomeNotCommitted,
		detail: "A date or time value is not valid."},
	{state: "22008", name: "datetime_field_overflow", code: problem.ValidationFailed, outcome: problem.OutcomeNotCommitted,
		detail: "A date or time value is not valid."},
	{state: "22", name: "data_exception", code: problem.BadRequest, outcome: problem.OutcomeNotCommitted,
		detail: "A value in the request cannot be stored."},

	{state: "40001", name: "serialization_failure", code: problem.Unavailable, outcome: problem.OutcomeNotCommitted, retrySoon: true,
		detail: "The operation collided with a concurrent one and was rolled back; retry it."},
	{state: "40P01", name: "deadlock_detected", code: problem.Unavailable, outcome: problem.OutcomeNotCommitted, retrySoon: true,
		detail: "The operation collided with a concurrent one and was rolled back; retry it."},
	{state: "40003", name: "statement_completion_unknown", code: problem.UpstreamError, outcome: problem.OutcomeUnknown,
		detail: "The database cannot tell whether the operation completed."},
	{state: "40", name: "transaction_rollback", code: problem.Unavailable, outcome: problem.OutcomeNotCommitted, retrySoon: true,
		detail: "The transaction was rolled back; retry it."},

	{state: "57014", name: "query_canceled", code: problem.Timeout, outcome: problem.OutcomeNotCommitted,
		detail: "The database operation took too long and was canceled."},
	{state: "57P03", name: "cannot_connect_now", code: problem.Unavailable, outcome: problem.OutcomeNotStarted, retrySoon: true,
		detail: "The database is starting or stopping."},
	{state: "57", name: "operator_intervention", code: problem.UpstreamError, dropped: true,
		detail: "The connection to the database was lost."},
	{state: "53300", name: "too_many_connections", code: problem.Unavailable, outcome: problem.OutcomeNotStarted, retrySoon: true,
		detail: "The database has no free connection."},
	{state: "53", name: "insufficient_resources", code: problem.Unavailable, outcome: problem.OutcomeNotCommitted,
		detail: "The database is out of resources."},
	{state: "08", name: "connection_exception", code: problem.UpstreamError, dropped: true,
		detail: "The connection to the database was lost."},

	{state: "42501", name: "insufficient_privilege", code: problem.PolicyDenied, outcome: problem.OutcomeNotCommitted,
		detail: "A data access policy forbids this operation."},
	{state: "42", name: "syntax_error_or_access_rule_violation", code: problem.Internal, outcome: problem.OutcomeNotCommitted},
	// pgx caches prepared statements; after a column is added, dropped or
	// retyped under a running service the server refuses the cached plan
	// with 0A000. It is schema drift, not a missing feature, and pgx drops
	// the cached statement, so a retry succeeds.
	{state: "0A000", routine: "RevalidateCachedQuery", name: "feature_not_supported (cached plan must not change result type)", code: problem.Internal, outcome: problem.OutcomeNotCommitted},
	{state: "0A000", name: "feature_not_supported", code: problem.NotImplemented, outcome: problem.OutcomeNotCommitted,
		detail: "This operation is not supported by the data store."},
	{state: "25006", name: "read_only_sql_transaction", code: problem.Unavailable, outcome: problem.OutcomeNotCommitted, retrySoon: true,
		detail: "The database accepts only reads at the moment."},
	{state: "55P03", name: "lock_not_available", code: problem.Unavailable, outcome: problem.OutcomeNotCommitted, retrySoon: true,
		detail: "A record the operation needs is locked; retry it."},
	{state: "54", name: "program_limit_exceeded", code: problem.BadRequest, outcome: problem.OutcomeNotCommitted,
		detail: "The request exceeds a limit of the data store."},
	{state: "28", name: "invalid_authorization_specification", code: problem.Internal, outcome: problem.OutcomeNotStarted},
	{state: "3D", name: "invalid_catalog_name", code: problem.Internal, outcome: problem.OutcomeNotStarted},
}

// otherState is the rule for every SQLSTATE the table does not list
// (including XX internal errors, 58 system errors and P0 raised exceptions,
// whose messages are the application's own and may say anything).
var otherState = rule{state: "*", name: "any other", code: problem.Internal, outcome: problem.OutcomeNotCommitted}

func ruleFor(state, routine string) *rule {
	for i := range rules {
		r := &rules[i]
		if r.routine != "" && r.routine != routine {
			continue
		}
		if r.state == state || len(r.state) == 2 && len(state) == 5 && state[:2] == r.state {
			return r
		}
	}
	return &otherState
}
