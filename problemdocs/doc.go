// Package problemdocs makes every problem type URI resolve and describes
// every failure in OpenAPI, from the registry alone.
//
// RFC 9457 §3.1.1 says a type URI, when dereferenced, should give
// human-readable documentation. [Handler] serves it: an HTML page per
// registered code (title, status, action, cause, retryable, meaning, an
// example document and how a client should react), the same as JSON by
// content negotiation, and an index of the catalog. When the Writer has a
// legacy window (problem.WithLegacy), the pages announce the legacy members
// error and message and the window's end date, and their examples carry
// the members as the Writer sends them. Mount it at the path the Writer's
// base URI names:
//
//	wr := problem.NewWriter(problem.WithBaseURI("https://api.example.com/problems/"))
//	mux.Handle("/problems/", problemdocs.Handler(problemdocs.WithWriter(wr)))
//
// [OpenAPI] renders an OpenAPI 3.1 document whose components describe the
// problem document (a Problem schema with code, action, cause and outcome as
// enums) and a reusable response per status with an example per code, in
// each media type the Writer sends (problem+json, problem+xml, text/plain);
// [Components] returns the same components for merging into a spec a
// service already has; [JSONSchema] is the problem document as a JSON
// Schema (2020-12) on its own.
package problemdocs
