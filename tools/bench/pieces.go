package main

// reproduce is the section of BENCHMARKS.md that says how to get these
// figures again, and how to weigh a change against them.
const reproduce = `
## Reproduce

` + "`make bench`" + ` runs every case and writes this file; ` + "`go run ./tools/bench -run REGEXP`" + ` runs the
cases whose name matches, printing the figures as it goes. To weigh a change, build the commands
of the other version into a folder (` + "`CGO_ENABLED=0 go build -trimpath -ldflags='-s -w' -o DIR/ ./cmd/...`" + `
in its checkout) and add ` + "`-alt DIR`" + `: both builds then run in the same rounds, and the table above
gets their CPU times side by side. On a busy machine read the CPU columns, with many runs
(` + "`-runs N`" + `): CPU time is counted in scheduler ticks.

The real transcripts are ../shared/transcripts (their README says where each comes from); the
grown ones are made from them by the Setup of tools/bench/cases_prune.go. The history of what
each piece of the read path once bought is in git (` + "`git log -- docs/BENCHMARKS.md`" + `).

flower-status's first read of a long session, measured by hand (not a case above): spotter's
transcript repeated to 99 MB, read once with no state, ` + "`/usr/bin/time -f '%M KB %U+%S s'`" + `. Reading
the new part whole took 192 MiB at the peak and 1.34-1.44 s of CPU; streaming it line by line
(transcript.Reader, after finding the last whole line from the end) takes 9-10 MiB and
0.52-0.57 s, with the same line printed. Reproduce: build ` + "`./cmd/flower-status`" + ` of each version, make
the file with ` + "`for i in $(seq 36); do cat ../shared/transcripts/spotter/258c7280-*.jsonl; done`" + `
into a file named like a session id, and run each with ` + "`XDG_STATE_HOME`" + ` set to a fresh folder and
` + "`{\"transcript_path\":\"FILE\"}`" + ` on stdin.
`
