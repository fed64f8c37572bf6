module github.com/flowerhooks/flower

go 1.26.0

require (
	github.com/google/go-cmp v0.7.0 // indirect
	github.com/tidwall/gjson v1.20.3 // indirect
	github.com/tidwall/match v1.1.1 // indirect
	github.com/tidwall/pretty v1.3.0 // indirect
	github.com/tidwall/sjson v1.2.9 // indirect
	mvdan.cc/sh/v3 v3.14.1 // indirect
)
