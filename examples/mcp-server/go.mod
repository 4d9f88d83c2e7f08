module github.com/faultline-go/faultline/examples/mcp-server

go 1.26.0

replace (
	github.com/faultline-go/faultline => ../..
	github.com/faultline-go/faultline/mcpfault => ../../mcpfault
)

require (
	github.com/faultline-go/faultline v0.0.0-00010101000000-000000000000
	github.com/faultline-go/faultline/mcpfault v0.0.0-00010101000000-000000000000
	github.com/modelcontextprotocol/go-sdk v1.8.0
)

require (
	github.com/cespare/xxhash/v2 v2.3.0 // indirect
	github.com/go-chi/chi/v5 v5.5.0 // indirect
	github.com/go-chi/httprate v0.16.1 // indirect
	github.com/google/jsonschema-go v0.4.3
	github.com/klauspost/cpuid/v2 v2.4.0 // indirect
	github.com/redis/go-redis/v9 v9.23.0 // indirect
	github.com/segmentio/asm v1.1.3 // indirect
	github.com/segmentio/encoding v0.5.4 // indirect
	github.com/yosida95/uritemplate/v3 v3.0.2 // indirect
	github.com/zeebo/xxh3 v1.1.0 // indirect
	go.uber.org/atomic v1.12.0 // indirect
	golang.org/x/oauth2 v0.35.0 // indirect
	golang.org/x/sync v0.20.0 // indirect
	golang.org/x/sys v0.49.0 // indirect
	golang.org/x/time v0.15.0 // indirect
)
