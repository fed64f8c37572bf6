package hook

import (
	"errors"
	"fmt"
	"sync"
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
// background when they are large.
type validation struct {
	n        int           // the payload's size, for the error
	ends     jsonscan.Ends // where the long strings are
	skeleton func() error
	bodies   func() error
}

var errUTF8 = errors.New("stdin is not valid UTF-8")

func invalidJSON(n int) error { return fmt.Errorf("stdin is not valid JSON (%d bytes)", n) }

// startValidation splits raw and starts checking its bodies. Both checks
// report the error a whole check would: invalid UTF-8 anywhere comes
// before invalid JSON anywhere.
func startValidation(raw []byte) *validation {
	skel, bodies, ends := jsonscan.Split(view(raw), jsonscan.LongString)
	v := &validation{n: len(raw), ends: ends}
	size := 0
	for _, b := range bodies {
		size += len(b)
	}
	checkAll := func() (validUTF8, validJSON bool) {
		validUTF8, validJSON = true, true
		for _, b := range bodies {
			validUTF8 = validUTF8 && utf8.ValidString(b)
		}
		for _, b := range bodies {
			validJSON = validJSON && jsonscan.ValidStringBody(b)
		}
		return validUTF8, validJSON
	}
	var check func() (bool, bool)
	if size >= backgroundBodies {
		type verdict struct{ utf8, json bool }
		done := make(chan verdict, 1)
		go func() {
			u, j := checkAll()
			done <- verdict{u, j}
		}()
		check = sync.OnceValues(func() (bool, bool) {
			r := <-done
			return r.utf8, r.json
		})
	} else {
		check = sync.OnceValues(checkAll)
	}
	v.bodies = func() error {
		validUTF8, validJSON := check()
		switch {
		case !validUTF8:
			return errUTF8
		case !validJSON:
			return invalidJSON(v.n)
		}
		return nil
	}
	v.skeleton = func() error {
		validUTF8, validJSON := bothChecks(skel)
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
	return v
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
