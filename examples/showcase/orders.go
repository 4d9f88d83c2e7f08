package main

import (
	"net/http"
	"strconv"
	"sync"

	"github.com/go-chi/chi/v5"

	"github.com/faultline-go/faultline/bind"
	"github.com/faultline-go/faultline/problem"
)

// orderRequest is the body of POST /v1/orders. Every rule fails on its own
// line of the validation_failed errors array, with a JSON Pointer.
type orderRequest struct {
	SKU      string `json:"sku" validate:"required,alphanum,max=32"`
	Quantity int    `json:"quantity" validate:"required,min=1,max=100"`
	Email    string `json:"email" validate:"required,email"`
}

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

func (s *orderStore) create(w http.ResponseWriter, r *http.Request) error {
	req, err := bind.Decode[orderRequest](r)
	if err != nil {
		return err
	}
	s.mu.Lock()
	o := order{ID: "ord_" + strconv.Itoa(s.next), SKU: req.SKU, Quantity: req.Quantity, Email: req.Email}
	s.next++
	s.orders[o.ID] = o
	s.mu.Unlock()
	w.Header().Set("Location", "/v1/orders/"+o.ID)
	writeJSON(w, http.StatusCreated, o)
	return nil
}

// remove is refused whoever asks: orders are kept for accounting. The
// problem's action none tells a client not to look for a way around it.
func (s *orderStore) remove(http.ResponseWriter, *http.Request) error {
	return problem.New(problem.PolicyDenied).WithDetail("Orders are never deleted; cancel the order instead.")
}
