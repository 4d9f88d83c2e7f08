package problem

import "net/http"

// HandlerFunc is a handler that returns its failure instead of writing it,
// so the error path cannot forget a return after writing.
type HandlerFunc func(w http.ResponseWriter, r *http.Request) error

// ServeHTTP runs f and writes a returned error with the Writer the
// request's context carries, or the default Writer.
func (f HandlerFunc) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	if err := f(w, r); failed(err) {
		_ = WriteError(w, r, err)
	}
}

// Handler is HandlerFunc bound to a specific Writer.
func (wr *Writer) Handler(f func(w http.ResponseWriter, r *http.Request) error) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if err := f(w, r); failed(err) {
			_ = wr.WriteError(w, r, err)
		}
	})
}

// failed reports whether a handler returned a failure. A nil *Problem in a
// non-nil error (`_, p := bind.Decode[T](r); return p` on success) is
// Go's typed-nil trap, not a failure: the handler has already answered.
func failed(err error) bool {
	if err == nil {
		return false
	}
	p, isProblem := err.(*Problem)
	return !isProblem || p != nil
}
