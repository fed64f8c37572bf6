module github.com/flowerhooks/flower

go 1.26.0

require (
	github.com/google/go-cmp v0.7.0
	github.com/tidwall/gjson v1.20.3
	github.com/tidwall/sjson v1.2.9
	mvdan.cc/sh/v3 v3.14.1
)

require (
	github.com/tidwall/match v1.1.1 // indirect
	github.com/tidwall/pretty v1.3.0 // indirect
)
