// Command mcp-server is an MCP tool server over streamable HTTP whose every
// failure speaks faultline's contract: the official Go SDK serves the
// protocol, mcpfault renders failures, and the HTTP kit (middleware.Stack,
// ratelimit) answers transport failures with problems.
//
//	go run ./examples/mcp-server   # serves MCP on 127.0.0.1:8090/mcp
package main

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"net"
	"net/http"
	"os"
	"os/signal"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"syscall"
	"time"

	"github.com/faultline-go/faultline/correlation"
	"github.com/faultline-go/faultline/mcpfault"
	"github.com/faultline-go/faultline/middleware"
	"github.com/faultline-go/faultline/problem"
	"github.com/faultline-go/faultline/ratelimit"
	"github.com/faultline-go/faultline/sanitize"
	"github.com/faultline-go/faultline/serve"
	"github.com/modelcontextprotocol/go-sdk/mcp"
)

func main() {
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	defer stop()
	logger := slog.New(correlation.NewHandler(sanitize.NewLogHandler(slog.NewJSONHandler(os.Stderr, nil))))
	addr := "127.0.0.1:8090"
	if v := os.Getenv("ADDR"); v != "" {
		addr = v
	}
	ln, err := net.Listen("tcp", addr)
	if err == nil {
		logger.Info("mcp server listening", "addr", "http://"+ln.Addr().String()+"/mcp")
		a := newApp(logger)
		err = serve.Run(ctx, serve.NewServer(a.handler), ln, serve.WithWriter(a.writer))
	}
	if err != nil {
		logger.Error("server stopped", "err", err)
		os.Exit(1)
	}
}

// errInventoryDown stands for a dependency failing with text that must never
// reach an agent (a DSN with a password and a private address).
var errInventoryDown = errors.New("inventory unavailable")

type order struct {
	ID       string `json:"id"`
	SKU      string `json:"sku"`
	Quantity int    `json:"quantity"`
}

// app is the server and its in-memory state, so tests can inspect it.
type app struct {
	handler http.Handler
	writer  *problem.Writer

	mu        sync.Mutex
	orders    map[string]order
	approvals map[string]string // approval id -> pending, approved, denied
	searches  atomic.Int64
	writes    atomic.Int64 // executions of slow_write, to show it is not replayed
	// maintenance closes the transport: every request is refused with a 503
	// problem before the MCP session sees it.
	maintenance atomic.Bool
}

const (
	bearerToken = "demo-token"
	// revokedToken authenticates a caller whose access policy revoked:
	// the transport refuses it with a 403 problem.
	revokedToken = "revoked-token"
)

func newApp(logger *slog.Logger) *app {
	a := &app{orders: map[string]order{"o1": {ID: "o1", SKU: "BOOK-1", Quantity: 2}}, approvals: map[string]string{}}
	wr := problem.NewWriter(
		problem.WithLogger(logger),
		problem.WithMappers(problem.MapIs(errInventoryDown, func() *problem.Problem {
			return problem.New(problem.UpstreamError).WithDetail("The inventory service failed.")
		})),
	)

	server := mcp.NewServer(&mcp.Implementation{Name: "orders", Version: "1.0.0"}, nil)
	server.AddReceivingMiddleware(mcpfault.Middleware(mcpfault.WithWriter(wr)))
	a.addTools(server)

	mcpHandler := mcp.NewStreamableHTTPHandler(func(*http.Request) *mcp.Server { return server },
		&mcp.StreamableHTTPOptions{Stateless: true, JSONResponse: true})

	mux := http.NewServeMux()
	limited := ratelimit.LimitBy(50, time.Second, ratelimit.ByHeader("Authorization"))
	mux.Handle("/mcp", a.gate(requireBearer(limited(mcpfault.Handler(mcpHandler)))))
	a.writer = wr
	// TooLarge sits outside the Stack, whose body limit refuses an
	// oversized call before anything inside runs: the agent gets the 413
	// as a JSON-RPC error of that call, and its session goes on.
	a.handler = mcpfault.TooLarge(middleware.Stack(middleware.WithWriter(wr), middleware.WithBodyLimit(64<<10))(mux))
	return a
}

// gate refuses every request with a 503 problem while in maintenance.
func (a *app) gate(next http.Handler) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if a.maintenance.Load() {
			problem.Write(w, r, problem.New(problem.Unavailable).
				WithDetail("The server is in maintenance.").WithRetryAfter(30*time.Second).WithOutcome(problem.OutcomeNotStarted))
			return
		}
		next.ServeHTTP(w, r)
	})
}

// requireBearer answers a request without the bearer token with a 401
// problem on the transport, and one whose token was revoked with a 403,
// before the MCP session sees it.
func requireBearer(next http.Handler) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		auth := r.Header.Get("Authorization")
		if auth == "Bearer "+revokedToken {
			problem.Write(w, r, problem.New(problem.PolicyDenied).WithDetail("Access for this token was revoked."))
			return
		}
		if auth != "Bearer "+bearerToken {
			w.Header().Set("WWW-Authenticate", `Bearer realm="orders"`)
			problem.Write(w, r, problem.New(problem.Unauthorized))
			return
		}
		next.ServeHTTP(w, r)
	})
}

type getOrderIn struct {
	ID string `json:"id" jsonschema:"the order id"`
}

type createOrderIn struct {
	SKU      string `json:"sku" jsonschema:"the stock keeping unit"`
	Quantity int    `json:"quantity" jsonschema:"how many, at least 1"`
}

type refundIn struct {
	OrderID string `json:"order_id"`
}

type approvalIn struct {
	ApprovalID string `json:"approval_id"`
}

type exportIn struct {
	APIKey string `json:"api_key"`
}

type empty struct{}

// readOnly marks tools that change nothing: a failure of one of them may be
// retried, while a failed write of unknown outcome must be verified.
var readOnly = &mcp.ToolAnnotations{ReadOnlyHint: true}

func (a *app) addTools(s *mcp.Server) {
	mcpfault.AddTool(s, &mcp.Tool{Name: "get_order", Description: "Read one order.", Annotations: readOnly},
		func(_ context.Context, _ *mcp.CallToolRequest, in getOrderIn) (*mcp.CallToolResult, order, error) {
			a.mu.Lock()
			o, ok := a.orders[in.ID]
			a.mu.Unlock()
			if !ok {
				return nil, order{}, problem.New(problem.NotFound).WithDetail("No order has this id.")
			}
			return nil, o, nil
		})

	mcpfault.AddTool(s, &mcp.Tool{Name: "create_order", Description: "Create an order."},
		func(_ context.Context, _ *mcp.CallToolRequest, in createOrderIn) (*mcp.CallToolResult, order, error) {
			var errs []problem.FieldError
			if in.SKU == "" {
				errs = append(errs, problem.FieldError{Pointer: "/sku", Detail: "sku is required", Code: "required"})
			}
			if in.Quantity < 1 {
				errs = append(errs, problem.FieldError{Pointer: "/quantity", Detail: "quantity must be at least 1", Code: "min"})
			}
			if len(errs) > 0 {
				return nil, order{}, problem.New(problem.ValidationFailed).WithErrors(errs...)
			}
			a.mu.Lock()
			defer a.mu.Unlock()
			o := order{ID: "o" + strconv.Itoa(len(a.orders)+1), SKU: in.SKU, Quantity: in.Quantity}
			a.orders[o.ID] = o
			return nil, o, nil
		})

	mcpfault.AddTool(s, &mcp.Tool{Name: "delete_all_orders", Description: "Refused by policy."},
		func(context.Context, *mcp.CallToolRequest, empty) (*mcp.CallToolResult, empty, error) {
			return nil, empty{}, problem.New(problem.PolicyDenied).WithDetail("Bulk deletion is not allowed.")
		})

	// Its output type is mcpfault.Approval, so the output schema it
	// advertises admits the pending result that clients validate.
	mcpfault.AddTool(s, &mcp.Tool{Name: "refund", Description: "Refund an order; needs an approval."},
		func(_ context.Context, _ *mcp.CallToolRequest, in refundIn) (*mcp.CallToolResult, mcpfault.Approval, error) {
			a.mu.Lock()
			defer a.mu.Unlock()
			id := "apr-" + strconv.Itoa(len(a.approvals)+1)
			a.approvals[id] = "pending"
			return nil, mcpfault.Approval{}, &mcpfault.Pending{ApprovalID: id, RetryAfter: time.Second}
		})

	mcpfault.AddTool(s, &mcp.Tool{Name: "approval_status", Description: "Poll an approval.", Annotations: readOnly},
		func(_ context.Context, _ *mcp.CallToolRequest, in approvalIn) (*mcp.CallToolResult, map[string]string, error) {
			a.mu.Lock()
			defer a.mu.Unlock()
			state, ok := a.approvals[in.ApprovalID]
			if !ok {
				return nil, nil, problem.New(problem.NotFound).WithDetail("No approval has this id.")
			}
			return nil, map[string]string{"approval_id": in.ApprovalID, "state": state}, nil
		})

	mcpfault.AddTool(s, &mcp.Tool{Name: "search", Description: "Search orders; at most 2 calls.", Annotations: readOnly},
		func(context.Context, *mcp.CallToolRequest, empty) (*mcp.CallToolResult, empty, error) {
			if a.searches.Add(1) > 2 {
				return nil, empty{}, problem.New(problem.RateLimited).WithRetryAfter(1500 * time.Millisecond)
			}
			return nil, empty{}, nil
		})

	mcpfault.AddTool(s, &mcp.Tool{Name: "sync_inventory", Description: "Fails upstream."},
		func(context.Context, *mcp.CallToolRequest, empty) (*mcp.CallToolResult, empty, error) {
			return nil, empty{}, fmt.Errorf("dial postgres://app:s3cretPW@10.1.2.3:5432/inventory: %w", errInventoryDown)
		})

	mcpfault.AddTool(s, &mcp.Tool{Name: "slow_write", Description: "A write that times out with an unknown outcome."},
		func(ctx context.Context, _ *mcp.CallToolRequest, _ empty) (*mcp.CallToolResult, empty, error) {
			a.writes.Add(1)
			ctx, cancel := context.WithTimeout(ctx, 20*time.Millisecond)
			defer cancel()
			<-ctx.Done()
			return nil, empty{}, problem.New(problem.Timeout).WithOutcome(problem.OutcomeUnknown).Wrap(ctx.Err())
		})

	mcpfault.AddTool(s, &mcp.Tool{Name: "export_orders", Description: "Needs an API key in the arguments.", Annotations: readOnly},
		func(_ context.Context, _ *mcp.CallToolRequest, in exportIn) (*mcp.CallToolResult, empty, error) {
			if !strings.HasPrefix(in.APIKey, "key-") {
				return nil, empty{}, problem.New(problem.Unauthorized).WithDetail("The api_key argument is missing or invalid.")
			}
			return nil, empty{}, nil
		})

	mcpfault.AddTool(s, &mcp.Tool{Name: "stock_level", Description: "Reads stock from the inventory service, which is failing.", Annotations: readOnly},
		func(context.Context, *mcp.CallToolRequest, empty) (*mcp.CallToolResult, empty, error) {
			return nil, empty{}, fmt.Errorf("dial postgres://app:s3cretPW@10.1.2.3:5432/inventory: %w", errInventoryDown)
		})

	mcpfault.AddTool(s, &mcp.Tool{Name: "fetch_url", Description: "Outbound fetches are blocked by policy.", Annotations: readOnly},
		func(context.Context, *mcp.CallToolRequest, empty) (*mcp.CallToolResult, empty, error) {
			return nil, empty{}, problem.New(problem.EgressBlocked)
		})

	mcpfault.AddTool(s, &mcp.Tool{Name: "export_everything", Description: "Its result would be too large.", Annotations: readOnly},
		func(context.Context, *mcp.CallToolRequest, empty) (*mcp.CallToolResult, empty, error) {
			return nil, empty{}, problem.New(problem.ResponseTooLarge).WithDetail("The export exceeds 1 MiB; ask for a date range.")
		})

	mcpfault.AddTool(s, &mcp.Tool{Name: "ledger_write", Description: "Refused while the audit path is down (strict mode)."},
		func(context.Context, *mcp.CallToolRequest, empty) (*mcp.CallToolResult, empty, error) {
			return nil, empty{}, problem.New(problem.AuditUnavailable).WithRetryAfter(2 * time.Second)
		})

	mcpfault.AddTool(s, &mcp.Tool{Name: "read_replica", Description: "Its source is behind an open circuit breaker.", Annotations: readOnly},
		func(context.Context, *mcp.CallToolRequest, empty) (*mcp.CallToolResult, empty, error) {
			return nil, empty{}, problem.New(problem.Unavailable).WithDetail("The reporting source is unavailable (circuit open).").
				WithRetryAfter(5 * time.Second).WithOutcome(problem.OutcomeNotStarted)
		})

	mcpfault.AddTool(s, &mcp.Tool{Name: "crash", Description: "Panics."},
		func(context.Context, *mcp.CallToolRequest, empty) (*mcp.CallToolResult, empty, error) {
			panic("nil map write at /srv/app/orders.go:42 token=ghp_0123456789abcdefghijABCDEFGHIJ012345")
		})
}
