package main

import (
	"fmt"
	"net/http"

	"github.com/faultline-go/faultline/problem"
)

// inventoryError is what a database driver hands back: its text names the
// connection string, the server's private address and the statement with
// its literals. Useful to the operator, dangerous in a response.
type inventoryError struct {
	dsn, query, sqlState, msg string
}

func (e *inventoryError) Error() string {
	return fmt.Sprintf("inventory: query %s on %s: ERROR: %s (SQLSTATE %s)", e.query, e.dsn, e.msg, e.sqlState)
}

// upstreamMapper gives the client a coded, retryable problem for the
// failure; the error itself is wrapped by FromError and reaches only the log.
var upstreamMapper = problem.MapAs(func(*inventoryError) *problem.Problem {
	return problem.New(problem.UpstreamError).WithDetail("The inventory service failed; try again shortly.")
})

func callUpstream(http.ResponseWriter, *http.Request) error {
	return fmt.Errorf("reserve stock: %w", &inventoryError{
		dsn:      "postgres://orders_app:Tr0ub4dor-3x@10.42.7.19:5432/inventory?sslmode=require",
		query:    "SELECT qty FROM stock WHERE sku = 'SKU-LEAK-42' FOR UPDATE",
		sqlState: "55P03",
		msg:      "canceling statement due to lock timeout",
	})
}
