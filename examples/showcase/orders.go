package main

import (
	"net/http"
	"sync"

	"github.com/go-chi/chi/v5"

	"github.com/faultline-go/faultline/problem"
)

type order struct {
	ID       string `json:"id"`
	SKU      string `json:"sku"`
	Quantity int    `json:"quantity"`
	Email    string `json:"email"`
}

type orderStore struct {
	mu     sync.Mutex
	next   int
	orders map[string]order
}

// newOrderStore starts with ord_1 so the 200 path works before anyone has
// created an order.
func newOrderStore() *orderStore {
	return &orderStore{next: 2, orders: map[string]order{
		"ord_1": {ID: "ord_1", SKU: "KB-101", Quantity: 1, Email: "ada@example.com"},
	}}
}

func (s *orderStore) get(w http.ResponseWriter, r *http.Request) error {
	s.mu.Lock()
	o, ok := s.orders[chi.URLParam(r, "id")]
	s.mu.Unlock()
	if !ok {
		return problem.New(problem.NotFound).WithDetail("No order exists with this id.")
	}
	writeJSON(w, http.StatusOK, o)
	return nil
}
