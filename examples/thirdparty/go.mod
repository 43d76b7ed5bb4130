module github.com/faultline/faultline/examples/thirdparty

go 1.26.0

require (
	github.com/faultline/faultline v0.0.0
	github.com/stripe/stripe-go/v82 v82.5.1
)

require (
	golang.org/x/text v0.42.0 // indirect
	pgregory.net/rapid v1.3.0 // indirect
)

replace github.com/faultline/faultline => ../..
