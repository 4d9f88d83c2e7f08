// Package problemdocs makes every problem type URI resolve and describes
// every failure in OpenAPI, from the registry alone.
//
// RFC 9457 §3.1.1 says a type URI, when dereferenced, should give
// human-readable documentation. [Handler] serves it: an HTML page per
// registered code (title, status, action, cause, retryable, the outcome
// when the code guarantees one, meaning, an example document and how a
// client should react), the same as JSON by
// content negotiation, and an index of the catalog. When the Writer has a
// legacy window (problem.WithLegacy), the pages announce the legacy members
// error and message and the window's end date, and their examples carry
// the members as the Writer sends them. Mount it at the path the Writer's
// base URI names:
//
//	wr := problem.NewWriter(problem.WithBaseURI("https://api.example.com/problems/"))
//	mux.Handle("/problems/", problemdocs.Handler(problemdocs.WithWriter(wr)))
//
// [Components] returns OpenAPI 3.1 components, for merging into the
// service's spec, that describe the problem document (a Problem schema with
// code, action, cause and outcome as enums) and a reusable response per
// status with an example per code, in each media type the Writer sends
// (problem+json, problem+xml, text/plain); a service without a spec of its
// own puts them in a document of its own under "components". [JSONSchema]
// is the problem document as a JSON Schema (2020-12) on its own.
//
// # Pages
//
// A page is served as JSON when Accept prefers it, and Accept refusing both
// HTML and JSON gets a not_acceptable problem. Without a legacy window
// nothing of it appears; after the window's end date the pages say the
// legacy members are no longer sent, and the JSON carries legacy: {members,
// until, active}.
//
// # OpenAPI
//
// The Problem schema lists errors[] with JSON Pointers; the problem+xml
// media type uses the same schema with RFC 9457 Appendix B's XML names. The
// responses are named by status (#/components/responses/Problem429), so an
// operation refers to the one it can answer. For huma v2, marshal
// api.OpenAPI(), merge [Components] into it and refer to the responses from
// the operations; the repository's benchmarks/openapi_huma_test.go does so
// and validates the result. The tests validate the output with kin-openapi,
// check every body a server built with the kit sends, in each media type,
// with openapi3filter.ValidateResponse, and render the pages in headless
// Chromium.
package problemdocs
