// Command postgres is a small chi service over PostgreSQL whose database
// failures reach clients as problems through pgfault: a duplicate is a
// conflict, a value the column refuses is validation_failed, an exhausted
// pool or a deadlock says when to retry, and a write whose connection died
// says outcome unknown (action verify without an Idempotency-Key). No
// response names a table, a constraint, a value or the SQL; the log record
// carries all of it under the correlation ID.
//
//	DATABASE_URL=postgres://app@127.0.0.1:5432/app go run ./pgfault/examples/postgres
package main

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"io"
	"log/slog"
	"net"
	"net/http"
	"os"
	"os/signal"
	"syscall"
	"time"

	"github.com/faultline-go/faultline/correlation"
	"github.com/faultline-go/faultline/sanitize"
	"github.com/jackc/pgx/v5/pgxpool"
)

func main() {
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	defer stop()
	if err := run(ctx, os.Args[1:], os.Stdout, os.Stderr); err != nil {
		fmt.Fprintln(os.Stderr, "postgres:", err)
		os.Exit(1)
	}
}

func run(ctx context.Context, args []string, stdout, stderr io.Writer) error {
	fs := flag.NewFlagSet("postgres", flag.ContinueOnError)
	fs.SetOutput(stderr)
	addr := fs.String("addr", "127.0.0.1:8082", "listen address")
	dsn := fs.String("dsn", os.Getenv("DATABASE_URL"), "PostgreSQL connection string (default $DATABASE_URL)")
	if err := fs.Parse(args); err != nil {
		return err
	}
	if *dsn == "" {
		return errors.New("set -dsn or DATABASE_URL")
	}
	logger := slog.New(correlation.NewHandler(sanitize.NewLogHandler(slog.NewJSONHandler(stderr, nil))))
	pool, err := openPool(ctx, *dsn, defaultConfig)
	if err != nil {
		return err
	}
	defer pool.Close()
	if err := migrate(ctx, pool); err != nil {
		return err
	}

	ln, err := net.Listen("tcp", *addr)
	if err != nil {
		return err
	}
	fmt.Fprintf(stdout, "faultline postgres example listening on http://%s\n", ln.Addr())
	hs := &http.Server{Handler: newRouter(pool, logger, defaultConfig), ReadHeaderTimeout: 5 * time.Second}
	errc := make(chan error, 1)
	go func() { errc <- hs.Serve(ln) }()
	select {
	case err := <-errc:
		return err
	case <-ctx.Done():
	}
	shutdownCtx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
	defer cancel()
	if err := hs.Shutdown(shutdownCtx); err != nil {
		return err
	}
	<-errc
	return nil
}

// config holds the limits the failures depend on, so the test can make
// them small.
type config struct {
	MaxConns int32
	// StatementTimeout is the server-side limit of every statement.
	StatementTimeout time.Duration
	// QueryTimeout bounds one request's database work, waiting for a
	// pooled connection included.
	QueryTimeout time.Duration
	// ReportTimeout is QueryTimeout for the slow report.
	ReportTimeout time.Duration
	// MovePause is the work a move does between its two updates.
	MovePause time.Duration
}

var defaultConfig = config{
	MaxConns:         8,
	StatementTimeout: 2 * time.Second,
	QueryTimeout:     3 * time.Second,
	ReportTimeout:    10 * time.Second,
	MovePause:        50 * time.Millisecond,
}

func openPool(ctx context.Context, dsn string, c config) (*pgxpool.Pool, error) {
	cfg, err := pgxpool.ParseConfig(dsn)
	if err != nil {
		// The error quotes the connection string, password masked only
		// on a best-effort basis; say less.
		return nil, errors.New("the connection string does not parse")
	}
	cfg.MaxConns = c.MaxConns
	cfg.ConnConfig.RuntimeParams["statement_timeout"] = fmt.Sprint(c.StatementTimeout.Milliseconds())
	return pgxpool.NewWithConfig(ctx, cfg)
}

func migrate(ctx context.Context, pool *pgxpool.Pool) error {
	_, err := pool.Exec(ctx, `
CREATE TABLE IF NOT EXISTS items (
	id int PRIMARY KEY,
	label varchar(16) NOT NULL,
	qty int NOT NULL CONSTRAINT qty_not_negative CHECK (qty >= 0)
);
CREATE OR REPLACE VIEW item_labels AS SELECT id, label FROM items;`)
	return err
}
