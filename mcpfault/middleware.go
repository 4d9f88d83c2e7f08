package mcpfault

import (
	"context"
	"crypto/rand"
	"crypto/subtle"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"strings"

	"github.com/faultline-go/faultline/correlation"
	"github.com/faultline-go/faultline/internal/corrstate"
	"github.com/faultline-go/faultline/internal/problemhook"
	"github.com/faultline-go/faultline/problem"
	"github.com/modelcontextprotocol/go-sdk/jsonrpc"
	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// Option configures [Middleware], [IOTransport] and [StdioTransport].
type Option func(*config)

type config struct {
	writer *problem.Writer
}

// WithWriter sets the problem Writer whose registry, mappers, logger and
// legacy window the MCP surface uses. Without it, problem.Default().
func WithWriter(wr *problem.Writer) Option { return func(c *config) { c.writer = wr } }

// callState is shared between Middleware and the Tool wrapper of one call.
type callState struct {
	writer  *problem.Writer
	reached bool // the tool handler ran: the SDK accepted the arguments
}

type callKey struct{}

func stateFrom(ctx context.Context) *callState {
	s, _ := ctx.Value(callKey{}).(*callState)
	return s
}

// Middleware renders every failure of the server's methods in faultline's
// contract; install it with Server.AddReceivingMiddleware. Tool errors from
// handlers wrapped with [Tool] become tool results carrying the problem;
// failures of the call itself become JSON-RPC errors whose data is the
// problem; an approval that is pending becomes a non-error result.
func Middleware(opts ...Option) mcp.Middleware {
	c := config{}
	for _, o := range opts {
		o(&c)
	}
	return func(next mcp.MethodHandler) mcp.MethodHandler {
		return func(ctx context.Context, method string, req mcp.Request) (res mcp.Result, err error) {
			wr := c.writer
			if wr == nil {
				wr = problem.Default()
			}
			st := &callState{writer: wr}
			ctx = context.WithValue(ctx, callKey{}, st)
			// Over stdio or any transport without an HTTP request there is
			// no ID to take, but the agent still needs one that finds the
			// failure's log record; the handler's own records carry it too.
			id := correlationOf(req)
			if id == "" {
				id = correlation.ID(ctx)
			}
			if id == "" {
				id = corrstate.NewID()
			}
			ctx = correlation.WithID(ctx, id)
			// A handler not wrapped with Tool (or any method handler) that
			// panics would take the whole server down with it, and the SDK
			// does not recover; the agent gets an internal problem instead.
			defer func() {
				if v := recover(); v != nil {
					p := wr.Report(ctx, id, problem.New(problem.Internal).Wrap(fmt.Errorf("panic in %s: %v", method, v)))
					res, err = nil, rpcError(p.RPCCode(), p)
				}
			}()
			res, err = next(ctx, method, req)
			var pending *Pending
			if err != nil && method == "tools/call" && errors.As(err, &pending) {
				// A raw ToolHandler returns its error as the method's: the
				// approval still pends, and an internal failure would tell
				// the agent to repeat a call the queue does not deduplicate.
				return renderPending(ctx, wr, id, pending)
			}
			if err != nil {
				p := fromProtocolError(wr, err)
				p = wr.Report(ctx, id, p)
				var wire *jsonrpc.Error
				if !errors.As(err, &wire) && protocolKinds[string(p.Code())] && !asRPCError(method, req, string(p.Code())) {
					// A raw tool handler's own failure; the SDK's refusals
					// of the call (an unknown tool) stay protocol errors.
					return toolError(p), nil
				}
				return nil, rpcError(rpcCodeFor(err, p), p)
			}
			tr, ok := res.(*mcp.CallToolResult)
			if !ok || !tr.IsError {
				return res, nil
			}
			cause := tr.GetError()
			if cause == nil {
				// The handler built its own error result on purpose.
				return res, nil
			}
			if errors.As(cause, &pending) {
				return renderPending(ctx, wr, id, pending)
			}
			var p *problem.Problem
			if st.reached || !isSchemaRejection(cause) {
				p = wr.FromError(cause)
			} else {
				// The SDK refused the arguments before the handler ran; its
				// message quotes the schema and the input, so it is logged,
				// not sent.
				p = problem.New(problem.ValidationFailed).
					WithDetail("The arguments do not match the tool's input schema.").
					Wrap(cause)
			}
			p = wr.Report(ctx, id, p)
			if asRPCError(method, req, string(p.Code())) {
				return nil, rpcError(p.RPCCode(), p)
			}
			return toolError(p), nil
		}
	}
}

// renderPending answers a call whose handler returned a [Pending], as a
// tool error or as the method's error.
func renderPending(ctx context.Context, wr *problem.Writer, id string, pending *Pending) (mcp.Result, error) {
	if pending.ApprovalID != "" {
		return pending.result(id), nil
	}
	// Nothing to poll, and the call must not be repeated: the agent would
	// wait forever on a result that looks fine.
	p := wr.Report(ctx, id, problem.New(problem.Internal).Wrap(errors.New("mcpfault: Pending without an approval ID")))
	return nil, rpcError(p.RPCCode(), p)
}

// isSchemaRejection tells the SDK's refusal of a call's arguments (schema
// validation, or decoding into the handler's input type), which happens
// before the handler runs, from an error the handler itself returned: a
// handler not wrapped with Tool leaves no other trace of having run, and
// its failure must not tell the agent to change arguments that were fine.
// The SDK hands its refusal over as the decoder or validator made it,
// never wrapped, so an error that wraps another is the handler's own, even
// when what it wraps is a JSON error (an upstream's HTML error page, a
// stored document that does not decode).
func isSchemaRejection(err error) bool {
	switch err.(type) {
	case *json.SyntaxError, *json.UnmarshalTypeError:
		return true
	case interface{ Unwrap() error }, interface{ Unwrap() []error }:
		return false
	}
	msg := err.Error()
	return strings.HasPrefix(msg, `validating "arguments"`) || strings.HasPrefix(msg, "json: ")
}

// legacyResourceNotFound is the code SDKs before v1.7.0 (and peers still
// on that behaviour, or MCPGODEBUG=customresnotfounderrcode=1) send for an
// unknown resource. mcp.CodeResourceNotFound is now -32602, the value of
// jsonrpc.CodeInvalidParams: matching on it made every invalid-params error
// a not_found.
const legacyResourceNotFound = -32002

// fromProtocolError turns an error a method handler returned (the SDK's own
// JSON-RPC errors included) into a problem; the SDK's message, which can
// quote the request, is public text only after the public tier.
func fromProtocolError(wr *problem.Writer, err error) *problem.Problem {
	var wire *jsonrpc.Error
	if !errors.As(err, &wire) {
		return wr.FromError(err)
	}
	switch {
	case wire.Code == jsonrpc.CodeMethodNotFound || isResourceNotFound(wire):
		return problem.New(problem.NotFound).WithDetail(wire.Message).Wrap(err)
	case wire.Code == jsonrpc.CodeInvalidParams:
		return problem.New(problem.BadRequest).WithDetail(wire.Message).Wrap(err)
	case wire.Code == jsonrpc.CodeInvalidRequest || wire.Code == jsonrpc.CodeParseError:
		return problem.New(problem.InvalidJSON).Wrap(err)
	}
	return wr.FromError(err)
}

// isResourceNotFound tells the SDK's refusals of a name it does not serve
// (ResourceNotFoundError, invalid params carrying the unknown uri as data
// since SEP-2164; "unknown tool" and "unknown prompt") and the older -32002
// apart from any other invalid-params error, which is the agent's request
// to fix rather than a missing resource.
func isResourceNotFound(wire *jsonrpc.Error) bool {
	if wire.Code == legacyResourceNotFound {
		return true
	}
	if wire.Code != jsonrpc.CodeInvalidParams {
		return false
	}
	if strings.HasPrefix(wire.Message, "unknown tool ") || strings.HasPrefix(wire.Message, "unknown prompt ") {
		return true
	}
	if len(wire.Data) == 0 {
		return false
	}
	var data struct {
		URI *string `json:"uri"`
	}
	return json.Unmarshal(wire.Data, &data) == nil && data.URI != nil
}

// rpcCodeFor keeps the JSON-RPC code the SDK chose for its own errors (MCP
// clients branch on them) and otherwise takes the code's.
func rpcCodeFor(err error, p *problem.Problem) int {
	var wire *jsonrpc.Error
	if errors.As(err, &wire) && wire.Code != 0 {
		return int(wire.Code)
	}
	return p.RPCCode()
}

func rpcError(code int, p *problem.Problem) *jsonrpc.Error {
	return &jsonrpc.Error{
		Code:    int64(code),
		Message: problemhook.CLILine(p),
		Data:    json.RawMessage(p.AppendJSON(nil)),
	}
}

func toolError(p *problem.Problem) *mcp.CallToolResult {
	return &mcp.CallToolResult{
		Meta:              mcp.Meta{"status": status(string(p.Code()))},
		Content:           []mcp.Content{&mcp.TextContent{Text: problemhook.CLILine(p)}},
		StructuredContent: json.RawMessage(p.AppendJSON(nil)),
		IsError:           true,
	}
}

// correlationHeader carries the HTTP request's correlation ID into the MCP
// session: the SDK hands the HTTP headers to every method as RequestExtra.
// [Handler] always overwrites it, and prefixes the ID with handoffKey, so
// that a client which reaches the SDK's handler without Handler in front
// cannot choose the ID its failures are reported and logged under.
const correlationHeader = "Faultline-Correlation-Id"

// handoffKey is random per process: only Handler knows it.
var handoffKey = func() string {
	var b [16]byte
	_, _ = rand.Read(b[:]) // crypto/rand.Read never fails (Go 1.24+)
	return hex.EncodeToString(b[:])
}()

func correlationOf(req mcp.Request) string {
	if req == nil {
		return ""
	}
	extra := req.GetExtra()
	if extra == nil || extra.Header == nil {
		return ""
	}
	key, id, ok := strings.Cut(extra.Header.Get(correlationHeader), " ")
	if !ok || subtle.ConstantTimeCompare([]byte(key), []byte(handoffKey)) != 1 {
		return ""
	}
	return id
}
