// Package workbench owns the workbench of layer two: the folder (.flower/ by
// default) that outlives the conversation, its layout, the generated index of
// what it holds, and the prompt block that tells a model where it is and how
// to use it.
//
// Layout under the root, every folder created 0700 on first use:
//
//	scripts/    scripts the agents wrote to run again
//	artifacts/  long outputs: reports, logs, data
//	spill/      tool results spilled by layer three (written by spill-guard)
//	INDEX.md    generated from scripts/ and artifacts/; never edit it by hand
//	.state/     per-session bookkeeping of index-guard (hidden, not indexed)
//
// The index lists every regular file under scripts/ and artifacts/ (walking
// subfolders, skipping hidden and editor temp files): scripts first, each
// folder newest first, at most a set number of entries, each with a one-line
// description taken from the file's own header (see Describe) and its size.
// It holds no timestamps and no absolute paths, so the same files give the
// same bytes, and INDEX.md is rewritten only when those bytes change.
package workbench
