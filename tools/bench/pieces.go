package main

// pieces is the section of docs/BENCHMARKS.md on what each piece of the
// hooks' read path bought (issue 16). It is not measured by make bench:
// each row took a build of 2342113 with that one piece removed, timed with
// -alt against the build with all of them, in the same rounds.
const pieces = `
## What the read path's pieces buy

Each piece of the hooks' read path as it stood at 2342113 was removed alone, the commands built
again, and that build timed with ` + "`-alt`" + ` against the build with every piece, in the same rounds
(medians of the round-by-round ratios; above 1 means removing the piece made the case slower).
A piece stays only if removing it makes a realistic case (2 KB to 1 MB, and 50 MB through
` + "`persistedOutputPath`" + `) more than 1.25x slower. Cases: (1) index-guard, Write of 1 MB outside, pass;
(2) delegate-guard, subagent Write of 1 MB, pass; (3) delegate-guard, main-thread Write of 100 KB,
deny; (4) spill-guard, Bash 2 KB, pass; (5) Bash 10 KB, spill; (6) Read 100 KB, spill; (7) Read of a
1 MB image, pass; (8) MCP text 1 MB, spill; (9) 50 MB through persistedOutputPath; (10) 50 MB in the
payload (stress, no speed target).

| piece removed (replaced by) | 1 | 2 | 3 | 4 | 5 | 6 | 7 | 8 | 9 | 10 | decision |
|---|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---|
| all of reading: fstat sizing, mapped buffer, huge pages, pipe widening (io.ReadAll) | 1.52 | 1.49 | 1.01 | 1.03 | 1.06 | 0.96 | 1.51 | 1.41 | 0.99 | 1.72 | see the next rows |
| mapped buffer and huge pages (a heap buffer doubling from 64 KB) | 1.58 | 1.57 | 0.92 | 0.99 | 1.02 | 0.92 | 1.56 | 1.34 | 1.03 | 1.48 | **stays**, simplified: one mapping, never unmapped; no fstat sizing |
| the same, as one 8 MB heap buffer made at once | 1.31 | 1.34 | 1.08 | 1.16 | 1.25 | 1.21 | 1.44 | 1.22 | 1.14 | 3.11 | not taken: a large make costs on every run |
| the same, as one 2 MB heap buffer made at once | 1.17 | 1.14 | 0.89 | 1.02 | 1.04 | 0.94 | 1.14 | 1.18 | 1.00 | 1.54 | not taken |
| pipe widening, F_SETPIPE_SZ (nothing) | 1.03 | 1.03 | 1.04 | 0.98 | 1.01 | 0.99 | 1.05 | 1.05 | 1.15 | 1.13 | goes |
| background validation of long bodies (checked in line) | 1.00 | 1.03 | 1.01 | 0.99 | 1.02 | 0.97 | 0.99 | 0.99 | 0.84 | 1.03 | goes |
| skeleton/bodies split: long bodies checked eight bytes a step, walks stepping over them (utf8 + gjson.Valid on the whole) | 1.26 | 1.19 | 1.02 | 0.96 | 0.97 | 1.00 | 1.34 | 1.10 | 0.99 | 1.25 | the check **stays** (jsonscan.Valid); the split payload, Ends and lazy checking go |
| top-level members found once, lookups without copies (gjson.GetBytes per lookup) | 1.41 | 1.33 | 1.04 | 1.00 | 0.93 | 1.11 | 1.80 | 1.96 | 1.28 | 3.94 | **stays**, simplified: members as written, decoded on demand |
| spill-guard's word-at-a-time decoder and character counter (gjson's Str, utf8.RuneCountInString) | 1.00 | 1.04 | 1.11 | 1.00 | 1.07 | 1.17 | 1.01 | 1.36 | 1.13 | 3.66 | goes, for a plain decoder straight into the file (see the table above: case 8) |
| the spill counter's eight-bytes-a-step count of UTF-8 continuation bytes (a loop over bytes) | 1.01 | 0.96 | 0.98 | 1.03 | 0.99 | 1.10 | 1.01 | 1.10 | 2.44 | 1.83 | **stays** |
| strings encoded by gjson in hook output (json.Marshal) | 1.01 | 0.98 | 1.05 | 0.93 | 0.97 | 0.95 | 0.98 | 1.01 | 0.89 | 1.32 | goes |

Reproduce a row: apply the replacement to a checkout of 2342113, build its commands into a folder,
and run ` + "`go run ./tools/bench -gobench=false -run 'spill-guard|payload' -alt FOLDER`" + ` from the
checkout with every piece. The table above compares this build with 2342113's the same way.
`
