// Package flowersettings is flower-settings, the editor install.sh runs to
// wire flower's hook entries (Catalog, from which settings.example.json and
// hooks/hooks.json are generated) into a Claude Code settings file and to
// take them out again, editing the text in place so that every other key and
// hook keeps its bytes. docs/REFERENCE.md describes the command.
package flowersettings
