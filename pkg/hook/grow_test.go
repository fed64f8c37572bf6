package hook

import (
	"bytes"
	"errors"
	"io"
	"testing"
	"testing/iotest"
)

func TestReadGrowing(t *testing.T) {
	for _, n := range []int{0, 1, firstReadBuffer - 1, firstReadBuffer, firstReadBuffer + 1, 5*firstReadBuffer + 7} {
		data := bytes.Repeat([]byte("0123456789abcdef"), n/16+1)[:n]
		for name, r := range map[string]io.Reader{
			"whole":    bytes.NewReader(data),
			"halves":   iotest.HalfReader(bytes.NewReader(data)),
			"data+EOF": iotest.DataErrReader(bytes.NewReader(data)),
		} {
			got, release, err := readGrowing(r)
			if err != nil || !bytes.Equal(got, data) {
				t.Errorf("%d bytes, %s: got %d bytes, %v; want %d, nil", n, name, len(got), err, n)
			}
			release()
		}
	}
	boom := errors.New("boom")
	if _, _, err := readGrowing(io.MultiReader(bytes.NewReader(make([]byte, 3*firstReadBuffer)), iotest.ErrReader(boom))); !errors.Is(err, boom) {
		t.Errorf("err = %v, want boom", err)
	}
}
