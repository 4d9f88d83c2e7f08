package main

import (
	"context"
	"encoding/json"
	"log/slog"
	"net/http"
	"time"

	"github.com/faultline-go/faultline/middleware"
	"github.com/faultline-go/faultline/pgfault"
	"github.com/faultline-go/faultline/problem"
	"github.com/go-chi/chi/v5"
	"github.com/jackc/pgx/v5/pgxpool"
)

type server struct {
	pool *pgxpool.Pool
	cfg  config
}

// newRouter wires the service. pgfault is one mapper on the writer; each
// handler passes its statements' errors through pgfault.Track.
func newRouter(pool *pgxpool.Pool, logger *slog.Logger, cfg config) http.Handler {
	wr := problem.NewWriter(
		problem.WithLogger(logger),
		problem.WithBaseURI("https://errors.example.com/"),
		problem.WithMappers(pgfault.Mapper(pgfault.WithPool(pool))),
	)
	s := &server{pool: pool, cfg: cfg}
	r := chi.NewRouter()
	r.Use(middleware.Stack(middleware.WithWriter(wr), middleware.WithBodyLimit(64<<10), middleware.WithRequestTimeout(15*time.Second)))
	r.NotFound(middleware.NotFound())
	r.MethodNotAllowed(middleware.MethodNotAllowed())
	r.Method(http.MethodPost, "/items", wr.Handler(s.createItem))
	r.Method(http.MethodGet, "/items/{id}", wr.Handler(s.getItem))
	r.Method(http.MethodGet, "/labels/{id}", wr.Handler(s.getLabel))
	r.Method(http.MethodPost, "/moves", wr.Handler(s.move))
	r.Method(http.MethodGet, "/report", wr.Handler(s.report))
	return r
}

// query bounds one request's database work.
func (s *server) query(r *http.Request, d time.Duration) (context.Context, context.CancelFunc) {
	return context.WithTimeout(r.Context(), d)
}

// createItem inserts what the client sent as it sent it: the column types
// and constraints are the validation, and their failures are mapped.
func (s *server) createItem(w http.ResponseWriter, r *http.Request) error {
	var in struct {
		ID    json.RawMessage `json:"id"`
		Label string          `json:"label"`
		Qty   json.RawMessage `json:"qty"`
	}
	if err := json.NewDecoder(r.Body).Decode(&in); err != nil {
		return problem.New(problem.InvalidJSON)
	}
	ctx, cancel := s.query(r, s.cfg.QueryTimeout)
	defer cancel()
	const q = "INSERT INTO items (id, label, qty) VALUES ($1::text::int, $2, $3::text::int)"
	op := pgfault.Track(ctx, q)
	if _, err := s.pool.Exec(ctx, q, unquote(in.ID), in.Label, unquote(in.Qty)); err != nil {
		return op.Err(err)
	}
	w.WriteHeader(http.StatusCreated)
	return nil
}

// unquote passes a JSON number or string on as text for PostgreSQL to
// parse.
func unquote(raw json.RawMessage) string {
	var s string
	if json.Unmarshal(raw, &s) == nil {
		return s
	}
	return string(raw)
}

func (s *server) getItem(w http.ResponseWriter, r *http.Request) error {
	ctx, cancel := s.query(r, s.cfg.QueryTimeout)
	defer cancel()
	const q = "SELECT id, label, qty FROM items WHERE id = $1::text::int"
	op := pgfault.Track(ctx, q)
	var item struct {
		ID    int    `json:"id"`
		Label string `json:"label"`
		Qty   int    `json:"qty"`
	}
	if err := s.pool.QueryRow(ctx, q, chi.URLParam(r, "id")).Scan(&item.ID, &item.Label, &item.Qty); err != nil {
		return op.Err(err)
	}
	return writeJSON(w, item)
}

func (s *server) getLabel(w http.ResponseWriter, r *http.Request) error {
	ctx, cancel := s.query(r, s.cfg.QueryTimeout)
	defer cancel()
	const q = "SELECT label FROM item_labels WHERE id = $1::text::int"
	op := pgfault.Track(ctx, q)
	var label string
	if err := s.pool.QueryRow(ctx, q, chi.URLParam(r, "id")).Scan(&label); err != nil {
		return op.Err(err)
	}
	return writeJSON(w, map[string]string{"label": label})
}

// move shifts stock between two items in one transaction; two opposite
// moves at once deadlock, and the loser is told to retry.
func (s *server) move(w http.ResponseWriter, r *http.Request) error {
	var in struct {
		From int `json:"from"`
		To   int `json:"to"`
		Qty  int `json:"qty"`
	}
	if err := json.NewDecoder(r.Body).Decode(&in); err != nil {
		return problem.New(problem.InvalidJSON)
	}
	// Every statement of the transaction counts as a write, the SELECT
	// pause included: the request as a whole mutates.
	ctx, cancel := s.query(r, s.cfg.QueryTimeout)
	defer cancel()
	ctx = pgfault.WithAccess(ctx, pgfault.Write)
	tx, err := s.pool.Begin(ctx)
	if err != nil {
		return pgfault.Track(ctx, "BEGIN").Err(err)
	}
	defer tx.Rollback(context.WithoutCancel(ctx))
	steps := []struct {
		q    string
		args []any
	}{
		{"UPDATE items SET qty = qty - $1 WHERE id = $2", []any{in.Qty, in.From}},
		{"SELECT pg_sleep($1)", []any{s.cfg.MovePause.Seconds()}},
		{"UPDATE items SET qty = qty + $1 WHERE id = $2", []any{in.Qty, in.To}},
	}
	for _, st := range steps {
		op := pgfault.Track(ctx, st.q)
		if _, err := tx.Exec(ctx, st.q, st.args...); err != nil {
			return op.Err(err)
		}
	}
	op := pgfault.Track(ctx, "COMMIT")
	if err := tx.Commit(ctx); err != nil {
		return op.Err(err)
	}
	w.WriteHeader(http.StatusNoContent)
	return nil
}

// report is the slow read that statement_timeout cuts short.
func (s *server) report(w http.ResponseWriter, r *http.Request) error {
	ctx, cancel := s.query(r, s.cfg.ReportTimeout)
	defer cancel()
	const q = "SELECT count(*) FROM items, pg_sleep(60)"
	op := pgfault.Track(ctx, q)
	var n int
	if err := s.pool.QueryRow(ctx, q).Scan(&n); err != nil {
		return op.Err(err)
	}
	return writeJSON(w, map[string]int{"items": n})
}

func writeJSON(w http.ResponseWriter, v any) error {
	w.Header().Set("Content-Type", "application/json")
	return json.NewEncoder(w).Encode(v)
}
