// Package problem is faultline's contract: every failure of an HTTP API
// answered as an RFC 9457 problem document with stable, machine-readable
// guidance a client can act on without reading prose.
//
// # The pieces
//
// A Kind is a code such as not_found, a typed string constant: the
// built-in kinds (NotFound, ValidationFailed, Internal, ...) are constants
// of this package, so no package can change what they mean for the whole
// process. What a code decides (status, title, action, cause,
// retryability) is its Definition, data the Registry holds; the built-in
// catalog is registered in every Registry, and a service registers its
// own codes with
//
//	var NoBook = problem.MustRegister(problem.Definition{Code: "no_book", Status: 404, ...})
//
// or, with a registry of its own, Registry.Register. Codes are never
// renumbered nor reused: a code on its way out is deprecated, and a retired
// code is refused forever.
//
// A Problem is one occurrence of a Kind: New(k) and then the With methods
// (WithDetail, WithAction, WithCause, WithRetryable, WithRetryAfter,
// WithOutcome, WithErrors, WithExtension, WithLogAttrs, Wrap), each of
// which returns a new Problem and never changes its receiver, so a Problem
// or a Kind kept in a package variable is safe to share between requests.
// Its members are read through methods named after them (Code, Status,
// Action, ...) and have no other setter: the code decides type, title and
// status, so a failure that needs another status is another Kind (Gone
// for 410, or a service's own, registered with MustRegister). A Problem is
// an error, and so is a Kind: a handler can return either, and errors.Is(err, problem.NotFound) matches any not_found
// problem in a chain.
//
// A Writer is the one configuration: type base URI, registry, logger,
// legacy window, error mappers, code header, observer. Its Write renders
// the problem in the representation the request accepts (problem+json,
// problem+xml, a text/plain proxy plane; HEAD gets headers only), logs one
// record with the correlation ID, and enforces the contract whatever the
// Problem says: the code must be registered (otherwise internal goes out,
// without the problem's extensions and field errors), a code that hides
// details never shows one, an unknown outcome without an Idempotency-Key is never retryable and
// asks the client to verify, action retry never goes with retryable false,
// and Retry-After agrees with retry_after_ms. The kit's middlewares and
// other packages find the Writer in the request's context (FromContext;
// middleware.Stack with WithWriter puts it there), so a service gives its
// logger and options once.
//
// A handler turns an error into a problem with From(r, err), which maps
// with the Writer serving r, so a mapping the service configured is never
// bypassed by the default one. Only errors of reading this request's body
// through the kit blame the request: bind and middleware.BodyLimit return
// invalid_json, request_too_large, unsupported_media_type or
// validation_failed as the error itself, while a *json.SyntaxError,
// *json.UnmarshalTypeError or *http.MaxBytesError from anything else the
// handler read (an upstream's answer) is internal.
//
// # Mistakes are loud for the developer, safe for the client
//
// What Write repairs because the problem broke a rule is a developer's
// mistake: an extension name that is reserved (a standard or faultline
// member's, in any case: encoding/json folds case) or not 3 to 64 ASCII
// letters, digits or underscores starting with a letter (the member is
// left out), an unregistered code (sent as internal without its
// extensions and field errors), a peer's status or title (read with Parse)
// that the code overrules (the code's are sent) or that is no error status
// (the code's, or 500), an action, cause or outcome outside its closed set (the code's,
// or none, internal and unknown). The client gets the repaired problem;
// its log record is at error level and names each mistake in the
// attribute build_error, and Writer.Check returns the same finding as an
// error, for a test or a startup check of a service's sentinel problems.
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
//
// # How a rendering differs from encoding/json
//
// problem+json, problem+xml and the text plane carry the same members with
// the same values. Where AppendJSON's output differs from what
// encoding/json.Marshal writes for the same members, one of these rules is
// the reason, and no other (FuzzRenderDifferential holds the kit to them):
//
//   - Text: every string a client reads passes sanitize.Public (detail,
//     extension values and map keys, field errors, and the type, title and
//     code of a problem not made by New); invalid UTF-8, invisible or
//     bidirectional format characters (internal/textclass.IsInvisible) and
//     the controls XML cannot carry or discourages (C0 but tab, line feed
//     and carriage return, DEL, C1; U+FFFE, U+FFFF) become U+FFFD, in JSON
//     as in XML, so no terminal reads ESC or U+009B from a problem.
//   - Secrets: the value of a member whose name marks a secret (password,
//     token, api_key, ...) is sanitize.Redacted, at any depth.
//   - Names: map keys that the public tier makes equal get a numeric suffix
//     (a second "ip" becomes "ip (2)"), so no object repeats a name; a
//     peer's top-level member whose name differs from another only in case
//     ("Retryable" beside "retryable") gets one too, since a decoder that
//     folds case would read it as that member.
//   - correlation_id is the ID the correlation layer accepted for the
//     request, as the header echoes it; one the problem names itself (a
//     peer's, read with Parse) passes the public tier like any text.
//   - type and instance are URI references: after the public tier every
//     byte outside RFC 3986's allowed set is percent-encoded
//     ("https://x.test/p?q=a b" is sent as "https://x.test/p?q=a%20b"),
//     valid escapes are kept; a colon in a relative reference's first
//     segment ("a:b c" is sent as "a%3Ab%20c") and a '#' after the first
//     are escaped too, so the reference parses as written. A type the
//     registry made (base URI + code) is written as it is.
//   - instance segment by segment: a path the public tier would replace as
//     a whole (a segment reads like SQL or a stack trace) has only those
//     segments redacted ("/v1/SELECT * FROM users/x" is sent as
//     "/v1/%5Bredacted%5D/x"), so it still names the same place; a token
//     hidden behind percent-escapes is redacted as if written plainly.
//   - Numbers: a NaN or infinite float, and a json.Number outside JSON's
//     grammar (NaN, +1, .5, 01, "") or beyond a double (1E700), is null.
//   - Empty containers: a nil map of any type is {} and a nil slice [] (a
//     nil []byte ""), unless its type has its own MarshalJSON or
//     MarshalText.
//   - Other types (structs, pointers, named types) are marshaled by
//     encoding/json and read back, so their tags and omitempty hold and a
//     nil map or slice inside a struct is null, as encoding/json writes it;
//     the rules above then apply to what it wrote. A value encoding/json
//     refuses is null as a whole: a struct holding a NaN or an invalid
//     json.Number, a channel, a failing MarshalJSON (an invalid
//     json.RawMessage such as "{" is null, never its bytes). Only the
//     containers the kit walks itself ([]any, map[string]any, maps with
//     non-string keys, slices) keep their other elements.
//   - Cycles and depth: a map or slice that contains itself is null where
//     it recurs, and so is anything nested deeper than 10000 levels.
//   - Guidance: an action, cause or outcome outside its closed set is left
//     out, action retry with retryable false is sent as none, and
//     retry_after_ms goes only with a retryable problem; a status outside
//     100-999 is left out (a Writer sends the code's status instead, and
//     reports the mistake).
//   - XML names: a member name that is not an XML name, or that starts
//     with "xml" in any case (XML reserves those), is written as
//     <member name="...">; null, "", {} and [] are all an empty element.
package problem
