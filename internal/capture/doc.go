// Package capture is the capture layer of layer three: it keeps the whole
// output of every Bash call in the workbench's spill folder, failing calls
// included, whose output Claude Code cuts and then throws away.
//
// It has two halves. Script is a bash file that Claude Code's Bash tool
// shell reads through BASH_ENV (the installer names it in the settings
// "env"): in that shell, and only there, it creates a new capture file in
// the spill folder, prints one line naming it (the marker) and sends the
// rest of the call's output to the file. The rest of this package is what
// spill-guard does with a marker: Find recognises one at the start of a
// Bash result, and View reads the file it names and builds what the model
// is shown instead of it: on success what layer three shows of any result
// (the whole output up to the threshold, else a spill pointer and the
// head), on failure an additionalContext with what failed, the head, the
// pointer and the tail, where a failing run prints its summary.
//
// A marker is trusted only as far as the file it names: the first line of
// the result, naming a file directly in the spill folder spill-guard uses,
// with a capture file's name for this session's id, a regular file that is
// no symlink, opened without blocking. Text that only looks like a marker
// (a file the repository ships, printed by cat) names no such file.
//
// Capture files are pruned by spill-guard: one shown whole on success is
// removed at once (the model holds all of it); the rest once they have not
// been written for MaxAge, which a command's background job still writing
// one keeps from happening.
package capture
