package serve_test

import (
	"context"
	"fmt"
	"io"
	"log/slog"
	"net"
	"net/http"
	"time"

	"github.com/faultline-go/faultline/problem"
	"github.com/faultline-go/faultline/serve"
)

// A main serves with the hardened server and shuts down on a signal (here
// a cancelled context): Run returns nil after a clean drain, so the
// process exits 0.
func ExampleRun() {
	wr := problem.NewWriter(problem.WithLogger(slog.New(slog.DiscardHandler)))
	mux := http.NewServeMux()
	mux.HandleFunc("GET /hello", func(w http.ResponseWriter, _ *http.Request) {
		io.WriteString(w, "hello")
	})

	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		panic(err)
	}
	ctx, stop := context.WithCancel(context.Background()) // signal.NotifyContext in a real main
	hs := serve.NewServer(mux)
	hs.ReadTimeout = time.Minute // a field of the http.Server, changed as on any other
	done := make(chan error, 1)
	go func() { done <- serve.Run(ctx, hs, ln, serve.WithWriter(wr), serve.WithShutdownBudget(5*time.Second)) }()

	resp, err := http.Get("http://" + ln.Addr().String() + "/hello")
	if err != nil {
		panic(err)
	}
	body, _ := io.ReadAll(resp.Body)
	resp.Body.Close()
	fmt.Println(resp.StatusCode, string(body))

	stop()
	fmt.Println("Run returned", <-done)
	// Output:
	// 200 hello
	// Run returned <nil>
}
