// Command approval shows the approval loop: a refund needs a person's
// approval, so POST /v1/refunds answers 202 Accepted with a status document
// and a poll URL; the client polls GET /v1/approvals/{id} until the approval
// is approved (the result's URL comes with it) or denied. The client never
// repeats the POST: that would queue a second approval.
//
//	go run ./examples/approval
//	curl -si -X POST localhost:8081/v1/refunds -d '{"order_id":"o1","amount":12}'
//	curl -si localhost:8081/v1/approvals/<id>
//	curl -si -X POST localhost:8081/v1/approvals/<id>/approve
package main

import (
	"context"
	"encoding/json"
	"log/slog"
	"net"
	"net/http"
	"os"
	"os/signal"
	"strconv"
	"sync"
	"syscall"
	"time"

	"github.com/faultline-go/faultline/approval"
	"github.com/faultline-go/faultline/correlation"
	"github.com/faultline-go/faultline/middleware"
	"github.com/faultline-go/faultline/problem"
	"github.com/faultline-go/faultline/sanitize"
	"github.com/faultline-go/faultline/serve"
)

func main() {
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	defer stop()
	logger := slog.New(correlation.NewHandler(sanitize.NewLogHandler(slog.NewJSONHandler(os.Stderr, nil))))
	addr := "127.0.0.1:8081"
	ln, err := net.Listen("tcp", addr)
	if err == nil {
		logger.Info("approval example listening", "addr", "http://"+addr)
		wr := problem.NewWriter(problem.WithLogger(logger))
		err = serve.Run(ctx, serve.NewServer(newApp(wr).handler), ln, serve.WithWriter(wr))
	}
	if err != nil {
		logger.Error("server stopped", "err", err)
		os.Exit(1)
	}
}

type refund struct {
	ID      string `json:"id"`
	OrderID string `json:"order_id"`
	Amount  int    `json:"amount"`
}

type app struct {
	handler   http.Handler
	approvals *memoryStore

	mu      sync.Mutex
	waiting map[string]refund // approval id -> the refund it would make
	refunds map[string]refund
}

// newApp takes the one Writer of the process: the Stack, the handlers
// and serve's shutdown answers all speak through it.
func newApp(wr *problem.Writer) *app {
	a := &app{
		approvals: newMemoryStore(func(id string) string { return "/v1/approvals/" + id }, 2*time.Second),
		waiting:   map[string]refund{},
		refunds:   map[string]refund{},
	}
	mux := http.NewServeMux()
	mux.Handle("POST /v1/refunds", wr.Handler(a.requestRefund))
	mux.Handle("GET /v1/approvals/{id}", approval.PollHandler(a.approvals, func(r *http.Request) string { return r.PathValue("id") }))
	mux.Handle("POST /v1/approvals/{id}/approve", wr.Handler(a.approve))
	mux.Handle("POST /v1/approvals/{id}/deny", wr.Handler(a.deny))
	mux.Handle("GET /v1/refunds/{id}", wr.Handler(a.getRefund))
	a.handler = middleware.Stack(middleware.WithWriter(wr), middleware.WithBodyLimit(4<<10))(mux)
	return a
}

func (a *app) requestRefund(w http.ResponseWriter, r *http.Request) error {
	var in refund
	if err := json.NewDecoder(r.Body).Decode(&in); err != nil || in.OrderID == "" || in.Amount <= 0 {
		return problem.New(problem.ValidationFailed).WithDetail("order_id and a positive amount are required.")
	}
	pending := a.approvals.create()
	a.mu.Lock()
	a.waiting[pending.ID] = in
	a.mu.Unlock()
	return approval.WriteAccepted(w, r, pending)
}

// approve stands for the approver's decision; it makes the refund the
// approval was for, exactly once.
func (a *app) approve(w http.ResponseWriter, r *http.Request) error {
	id := r.PathValue("id")
	a.mu.Lock()
	in, ok := a.waiting[id]
	if ok {
		delete(a.waiting, id)
		in.ID = "rf_" + strconv.Itoa(len(a.refunds)+1)
		a.refunds[in.ID] = in
	}
	a.mu.Unlock()
	if !ok {
		return problem.New(problem.Conflict).WithDetail("This approval is not pending.")
	}
	if err := a.approvals.approve(id, "/v1/refunds/"+in.ID, in); err != nil {
		return err
	}
	w.WriteHeader(http.StatusNoContent)
	return nil
}

func (a *app) deny(w http.ResponseWriter, r *http.Request) error {
	id := r.PathValue("id")
	a.mu.Lock()
	_, ok := a.waiting[id]
	delete(a.waiting, id)
	a.mu.Unlock()
	if !ok {
		return problem.New(problem.Conflict).WithDetail("This approval is not pending.")
	}
	if err := a.approvals.deny(id); err != nil {
		return err
	}
	w.WriteHeader(http.StatusNoContent)
	return nil
}

func (a *app) getRefund(w http.ResponseWriter, r *http.Request) error {
	a.mu.Lock()
	rf, ok := a.refunds[r.PathValue("id")]
	a.mu.Unlock()
	if !ok {
		return problem.New(problem.NotFound).WithDetail("No refund has this id.")
	}
	w.Header().Set("Content-Type", "application/json")
	return json.NewEncoder(w).Encode(rf)
}
