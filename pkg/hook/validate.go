package hook

import (
	"errors"
	"fmt"
	"unicode/utf8"

	"github.com/tidwall/gjson"

	"github.com/flowerhooks/flower/pkg/jsonscan"
)

// backgroundBodies is the total size of long string bodies from which they
// are checked on another core. Below it a goroutine costs more than it
// saves; above it, a 50 MB tool result takes tens of milliseconds to check.
const backgroundBodies = 1 << 20

// validation checks a payload in two parts (jsonscan.Split): the skeleton,
// all of it but the bodies of its long strings, and those bodies, which
// hold nearly all the bytes of a large payload and are checked in the
// background when they are large. Both parts report the error a whole
// check would: invalid UTF-8 anywhere comes before invalid JSON anywhere.
type validation struct {
	n    int           // the payload's size, for the error
	skel string        // the payload without its long bodies
	ends jsonscan.Ends // where the long strings are
	// bodyUTF8 and bodyJSON are the bodies' verdict, set once done is
	// closed (done is nil when they were set before startValidation
	// returned).
	done               chan struct{}
	bodyUTF8, bodyJSON bool
}

var errUTF8 = errors.New("stdin is not valid UTF-8")

func invalidJSON(n int) error { return fmt.Errorf("stdin is not valid JSON (%d bytes)", n) }

// startValidation splits raw and checks its bodies, in a goroutine when
// they are large.
func startValidation(raw []byte) *validation {
	skel, bodies, ends := jsonscan.Split(view(raw), jsonscan.LongString)
	v := &validation{n: len(raw), skel: skel, ends: ends}
	size := 0
	for _, b := range bodies {
		size += len(b)
	}
	check := func() {
		v.bodyUTF8, v.bodyJSON = true, true
		for _, b := range bodies {
			v.bodyUTF8 = v.bodyUTF8 && utf8.ValidString(b)
		}
		for _, b := range bodies {
			v.bodyJSON = v.bodyJSON && jsonscan.ValidStringBody(b)
		}
	}
	if size < backgroundBodies {
		check()
		return v
	}
	v.done = make(chan struct{})
	go func() {
		check()
		close(v.done)
	}()
	return v
}

// bodies waits for the bodies' verdict and returns it as an error.
func (v *validation) bodies() error {
	if v.done != nil {
		<-v.done
	}
	switch {
	case !v.bodyUTF8:
		return errUTF8
	case !v.bodyJSON:
		return invalidJSON(v.n)
	}
	return nil
}

// skeleton checks the skeleton. When it fails it waits for the bodies too,
// so that the error is the one a whole check gives.
func (v *validation) skeleton() error {
	validUTF8, validJSON := bothChecks(v.skel)
	if validUTF8 && validJSON {
		return nil
	}
	if !validUTF8 {
		return errUTF8
	}
	if err := v.bodies(); err == errUTF8 {
		return err
	}
	return invalidJSON(v.n)
}

// bothChecks checks UTF-8 and JSON syntax, on two cores when s is large
// (a payload of many short strings, which Split leaves whole).
func bothChecks(s string) (validUTF8, validJSON bool) {
	if len(s) < backgroundBodies {
		return utf8.ValidString(s), gjson.Valid(s)
	}
	done := make(chan bool)
	go func() { done <- utf8.ValidString(s) }()
	validJSON = gjson.Valid(s)
	return <-done, validJSON
}
