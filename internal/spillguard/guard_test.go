package spillguard

import (
	"testing"

	"github.com/google/go-cmp/cmp"
)

func TestDropPersisted(t *testing.T) {
	tests := []struct {
		name, in, want string
	}{
		{"as the CLI sends it",
			`{"stdout":"p","stderr":"","interrupted":false,"persistedOutputPath":"/c/b1.txt","persistedOutputSize":108894}`,
			`{"stdout":"p","stderr":"","interrupted":false}`},
		{"first and spaced",
			`{ "persistedOutputSize" : 1 , "persistedOutputPath" : "/c" , "stdout" : "p" }`,
			`{ "stdout" : "p" }`},
		{"repeated keys all go", // JSON.parse would read the last one
			`{"persistedOutputPath":"/a","stdout":"p","persistedOutputPath":"/b"}`,
			`{"stdout":"p"}`},
		{"absent", `{"stdout":"p","stderr":""}`, `{"stdout":"p","stderr":""}`},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got, err := dropPersisted([]byte(tt.in))
			if err != nil {
				t.Fatal(err)
			}
			if diff := cmp.Diff(tt.want, string(got)); diff != "" {
				t.Errorf("(-want +got):\n%s", diff)
			}
		})
	}
}
