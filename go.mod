module github.com/faultline/faultline

go 1.26.0
