package main

import _ "embed"

// pieces is the section of docs/BENCHMARKS.md on what each piece of the
// hooks' read path bought (issue 16). It is not measured by make bench:
// each row took a build of 2342113 with that one piece removed, timed with
// -alt against the build with all of them, in the same rounds.
//
//go:embed pieces.md
var pieces string
