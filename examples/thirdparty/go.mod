module github.com/faultline/faultline/examples/thirdparty

go 1.26.0

require github.com/faultline/faultline v0.0.0

replace github.com/faultline/faultline => ../..
