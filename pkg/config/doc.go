// Package config reads flower's configuration: one set of keys in two
// files, a user file ($XDG_CONFIG_HOME/flower/config.json, else
// ~/.config/flower/config.json) and a project file (.claude/flower.json in
// the project folder), the project's keys over the user's, and the
// command line's flags over both.
//
// A project file comes with the repository, so it is someone else's text.
// Unless the user file names its folder in trusted-projects, it may turn
// layers off and tune sizes, but what would let the main thread run more
// (glance entries, hands-on commands, fewer guarded tools), move the
// workbench or the spill folder outside the project, or touch the decision
// log is left out (Config.Ignored says so). Each key's Rule says which.
//
// Both files are read without blocking, must be regular files of at most
// MaxFileBytes, and are refused whole when they are not JSON, nest too
// deep, repeat a key, name an unknown key or hold a value of the wrong type
// or range; the project file and its .claude folder may not be symlinks.
// A file refused is ignored as if
// absent: the hooks say so in one stderr line and do their work with the
// defaults in its place (ForHook). Glance entries are read here for their
// shape only; what they may name is for the glance table to judge
// (ephemeral.NewGlances), which leaves a bad one out and says so, so that
// reading a configuration does not link the shell parser.
package config
