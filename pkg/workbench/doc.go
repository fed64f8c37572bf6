// Package workbench owns the workbench of layer two: the folder (.flower/ by
// default) that outlives the conversation, its layout, the generated index of
// what it holds, and the prompt blocks that tell a model where it is and how
// to use it.
//
// Layout under the root, every folder created 0700 when something is first
// saved there (never when a session starts):
//
//	scripts/    scripts the agents wrote to run again
//	artifacts/  long outputs: reports, logs, data
//	spill/      tool results spilled by layer three (written by spill-guard)
//	INDEX.md    generated from scripts/ and artifacts/; never edit it by hand
//	.state/     index-guard's bookkeeping (hidden, not indexed): what each
//	            session was last shown, and the record of the last scan
//
// A repository can commit any of these, so a workbench is opened (Open,
// Make) as a handle on its root folder, an os.Root: the root must not be a
// symlink, and no name under it leads a read or a write outside it. Every
// file read is opened non-blocking, must be a regular file and is read up
// to a cap.
//
// The index lists every regular file under scripts/ and artifacts/ (walking
// subfolders, skipping hidden and editor temp files, following no symlink):
// scripts first, each folder newest first, at most a set number of entries,
// each with a one-line description taken from the file's own header (see
// Describe) and its size. It holds no timestamps and no absolute paths, so
// the same files give the same bytes, and INDEX.md is rewritten only when
// those bytes change. Names and descriptions are the files' words, shown as
// data: inside a code fence, quoted or cleaned of anything that could make
// a line, a tag or hidden text.
package workbench
