module github.com/faultline-go/faultline/benchmarks

go 1.26.0

require (
	github.com/danielgtaylor/huma/v2 v2.37.2
	github.com/faultline-go/faultline v0.0.0
	github.com/go-chi/chi/v5 v5.5.0
	github.com/moogar0880/problems v1.0.1
)

replace github.com/faultline-go/faultline => ../
