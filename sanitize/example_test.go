package sanitize_test

import (
	"fmt"
	"log/slog"
	"os"

	"github.com/faultline-go/faultline/sanitize"
)

func ExamplePublic() {
	fmt.Println(sanitize.Public("upstream said: invalid API key: Zx9q2Lm4Kpw7Rt"))
	fmt.Println(sanitize.Public("dial tcp 10.0.3.7:5432: connection refused"))
	fmt.Println(sanitize.Public("Error 1146 (42S02): Table 'shop.order_items_archive' doesn't exist"))
	fmt.Println(sanitize.Public("the token expired"))
	// Output:
	// upstream said: invalid API key: [redacted]
	// dial tcp [redacted]: connection refused
	// An internal error occurred.
	// the token expired
}

func ExampleLog() {
	fmt.Println(sanitize.Log("restore: mysql -uroot -pS3cr3tPw9 -h db shop: exit status 1"))
	fmt.Println(sanitize.Log("charge failed for card 4111 1111 1111 1111"))
	fmt.Println(sanitize.Log("idempotency key 0193b1c2-7d1e-7a3b-9c4d-5e6f70819203 was already used"))
	fmt.Println(sanitize.Log("user input\nINFO forged line"))
	// Output:
	// restore: mysql -uroot -p[redacted] -h db shop: exit status 1
	// charge failed for card [redacted]1111
	// idempotency key 0193b1c2-7d1e-7a3b-9c4d-5e6f70819203 was already used
	// user input\nINFO forged line
}

func ExampleNewLogHandler() {
	text := slog.NewTextHandler(os.Stdout, &slog.HandlerOptions{
		ReplaceAttr: func(_ []string, a slog.Attr) slog.Attr {
			if a.Key == slog.TimeKey {
				return slog.Attr{} // a fixed output for the example
			}
			return a
		},
	})
	logger := slog.New(sanitize.NewLogHandler(text))
	logger.Error("login failed", "dsn", "postgres://app:hunter2pw@db:5432/shop", "detail", "auth: invalid token Zx9q2Lm4Kpw7Rt")
	// Output:
	// level=ERROR msg="login failed" dsn=postgres://[redacted]@db:5432/shop detail="auth: invalid token [redacted]"
}
