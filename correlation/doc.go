// Package correlation accepts, validates, generates and propagates request
// correlation IDs and W3C trace context.
package correlation
